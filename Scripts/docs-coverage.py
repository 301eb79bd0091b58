#!/usr/bin/env python3
"""Counts the public declarations of the library's public modules and those without a doc comment.

Reads the symbol graphs the compiler emitted (`-emit-symbol-graph`, minimum access level public)
from the folder given as the first argument. Members the compiler made rather than the source
declares (Equatable's `!=` from the standard library, a raw-value enum's `init(rawValue:)`) are
not counted: they have no place in the source to document. Prints the coverage per
module and every undocumented symbol; exits 1 when there is any.
"""
import glob, json, os, sys

modules = ['MovieContainer', 'MovieCapture', 'MovieEncoding', 'MovieRecorder', 'MovieNetwork']
folder = sys.argv[1]
missing, total = [], 0
for module in modules:
    path = os.path.join(folder, f'{module}.symbols.json')
    if not os.path.exists(path):
        sys.exit(f'docs-coverage: no symbol graph {path}; build with -emit-symbol-graph first')
    graph = json.load(open(path))
    count = undocumented = 0
    for symbol in graph['symbols']:
        if symbol['accessLevel'] not in ('public', 'open'):
            continue
        identifier = symbol['identifier']['precise']
        if '::SYNTHESIZED::' in identifier or 'location' not in symbol:
            continue
        count += 1
        if not symbol.get('docComment', {}).get('lines'):
            undocumented += 1
            location = symbol.get('location', {})
            where = location.get('uri', '').replace('file://', '')
            where = os.path.relpath(where) if where else '?'
            line = location.get('position', {}).get('line', -1) + 1
            missing.append(f'{where}:{line}: {module}.{".".join(symbol["pathComponents"])}')
    total += count
    print(f'docs-coverage: {module}: {count - undocumented} of {count} public declarations documented')
print(f'docs-coverage: {total} public declarations in all, {len(missing)} undocumented')
for entry in sorted(missing):
    print('  undocumented: ' + entry)
sys.exit(1 if missing else 0)
