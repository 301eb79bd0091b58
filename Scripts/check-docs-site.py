#!/usr/bin/env python3
"""Serves a DocC static site on 127.0.0.1 and loads pages in headless Chromium.

Usage: check-docs-site.py SITE_DIR, the MovieRecorder site Scripts/render-docs writes. Loads the
MovieRecorder landing page and the Getting Started article and checks that each rendered page's title is the page's own (DocC renders pages in the
browser, so a page that fails to render keeps the bare HTML title). Exits 1 when one does not.
"""
import functools, http.server, os, re, shutil, subprocess, sys, threading

site = sys.argv[1]
browser = shutil.which('chromium') or shutil.which('chromium-browser')
if not browser:
    sys.exit('check-docs-site: chromium is missing; install the chromium package (Scripts/install-dependencies --docs)')
class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
handler = functools.partial(QuietHandler, directory=site)

server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
def title_of(article):
    first = open(os.path.join(root, 'Sources/MovieRecorder/MovieRecorder.docc', article)).readline()
    return first.lstrip('# ').strip()

pages = [('documentation/movierecorder', 'MovieRecorder'),
         ('documentation/movierecorder/gettingstarted', title_of('GettingStarted.md'))]
failed = 0
for path, expected in pages:
    url = f'http://127.0.0.1:{port}/{path}'
    run = subprocess.run([browser, '--headless=new', '--no-sandbox', '--disable-gpu', '--virtual-time-budget=8000',
                          '--dump-dom', url], capture_output=True, text=True, timeout=120)
    match = re.search(r'<title>(.*?)</title>', run.stdout, re.S)
    title = match.group(1).strip() if match else '(no title)'
    ok = title.startswith(expected)
    failed += not ok
    print(f'check-docs-site: {"ok" if ok else "FAIL"} {url}: title "{title}", expected "{expected} | …"')
server.shutdown()
sys.exit(1 if failed else 0)
