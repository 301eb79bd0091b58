#!/usr/bin/env python3
"""Writes every ```swift block of README.md and the DocC articles into Tests/Examples/Sources/Examples.

Each block becomes the body of `@MainActor func example…() async throws` in a file of its own,
its import lines hoisted to the top of that file. A block whose first line is `// file-scope` is
placed at file scope (type declarations). The README's first block is also the body of the
package's `@main struct … { @MainActor static func main() async throws }`, as an application
would write it, and the program checks nothing else: it is compiled, not run.
"""
import glob, os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = os.path.join(root, 'Tests/Examples/Sources/Examples')
documents = ['README.md'] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, 'Sources/*/*.docc/*.md')))
imports = ['MovieRecorder', 'MovieCapture', 'MovieEncoding', 'MovieContainer']
fence = re.compile(r'^```swift\s*$(.*?)^```\s*$', re.S | re.M)

os.makedirs(out, exist_ok=True)
for old in glob.glob(os.path.join(out, '*.swift')):
    os.remove(old)

def split_imports(code):
    body, found = [], []
    for line in code.splitlines():
        m = re.match(r'^\s*import\s+(\w+)\s*$', line)
        if m:
            found.append(m.group(1))
        else:
            body.append(line)
    return found, '\n'.join(body)

count, first = 0, None
for document in documents:
    text = open(os.path.join(root, document)).read()
    for index, match in enumerate(fence.finditer(text)):
        code = match.group(1).strip('\n')
        line = text[:match.start()].count('\n') + 1
        found, body = split_imports(code)
        name = re.sub(r'[^A-Za-z0-9]', '_', os.path.splitext(os.path.basename(document))[0]) + f'_{index}'
        header = ''.join(f'import {m}\n' for m in dict.fromkeys(imports + found))
        header += f'// {document}:{line}\n'
        if body.lstrip().startswith('// file-scope'):
            source = header + body + '\n'
        else:
            indented = '\n'.join(('    ' + l) if l else l for l in body.splitlines())
            source = header + f'@MainActor func example_{name}() async throws {{\n{indented}\n}}\n'
            if document == 'README.md' and first is None:
                first = (header, indented)
        open(os.path.join(out, f'{name}.swift'), 'w').write(source)
        count += 1

if first is None:
    sys.exit('extract-examples: README.md has no ```swift block to compile from @main')
header, indented = first
open(os.path.join(out, 'Main.swift'), 'w').write(
    header + '@main\nstruct ExamplesApp {\n    @MainActor static func main() async throws {\n'
    + '        if CommandLine.arguments.count < 2 { return }  // compiled, not run\n'
    + '\n'.join(('    ' + l) if l else l for l in indented.splitlines()) + '\n    }\n}\n')
print(f'extract-examples: {count} Swift blocks from {len(documents)} documents')
