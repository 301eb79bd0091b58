#!/usr/bin/env python3
"""hls.js for the tests and benchmarks, offline: Debian does not package it, but the gradio wheel
on PyPI bundles hls.js 1.6 in its frontend. The module is extracted once into a cache folder.

    hlsjs.py PLAYLIST_URL [--seconds S]

plays PLAYLIST_URL (which must allow cross-origin requests) with hls.js in low-latency mode in
headless Chromium, from a page served on 127.0.0.1, and prints one JSON object: whether it
played, the playback position reached, hls.js's own latency estimate and the wall clock minus
`playingDate` (ms), and any fatal error.
"""
import argparse, glob, json, os, shutil, subprocess, sys, time, urllib.parse, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402

WHEEL = "gradio==6.31.0"


def hls_js_directory(cache=None):
    """A folder with hls.js's ES module (`hls.js`) and `index.html`, which plays `?src=` with it."""
    target = cache or os.path.join(os.path.expanduser("~"), ".cache", "movierecorder", "hlsjs")
    module = os.path.join(target, "hls.js")
    if not os.path.exists(module):
        os.makedirs(target, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", target, WHEEL], check=True)
        wheel = glob.glob(os.path.join(target, "gradio-*.whl"))[0]
        with zipfile.ZipFile(wheel) as z:
            name = next(n for n in z.namelist() if n.startswith("gradio/templates/frontend/assets/hls-") and n.endswith(".js"))
            with open(module + ".tmp", "wb") as f:
                f.write(z.read(name))
        os.rename(module + ".tmp", module)
        os.remove(wheel)
    with open(os.path.join(target, "index.html"), "w") as f:
        # The bundle exports (as `t`) a function that creates Hls in low-latency mode and attaches it.
        f.write("""<!doctype html><body style=margin:0><video id=video muted autoplay playsinline></video><script type=module>
import {t as attach} from './hls.js';
const video = document.getElementById('video');
window.hls = attach(video, new URLSearchParams(location.search).get('src'));
window.fatal = null;
window.hls.on('hlsError', (event, data) => { if (data.fatal) window.fatal = data.details; });
window.latencies = [];
setInterval(() => { const d = window.hls && window.hls.playingDate; if (d && !video.paused) latencies.push(Date.now() - d.getTime()); }, 100);
</script>""")
    return target


def serve(directory):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"], cwd=directory,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    return port, process


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--seconds", type=float, default=4)
    a = parser.parse_args()
    port, server = serve(hls_js_directory())
    browser = Browser(640, 360)
    out = {"played": False}
    try:
        browser.open(f"http://127.0.0.1:{port}/index.html?src=" + urllib.parse.quote(a.url, safe=":/"), 640, 360)
        deadline = time.time() + 20
        while time.time() < deadline and browser.evaluate("document.getElementById('video').currentTime > 1") is not True:
            time.sleep(0.1)
        time.sleep(a.seconds)
        out = browser.evaluate("""JSON.stringify({played: document.getElementById('video').currentTime > 1,
            position: document.getElementById('video').currentTime, latency: window.hls.latency,
            behind: window.latencies.length ? window.latencies[window.latencies.length - 1] : null, fatal: window.fatal})""")
        out = json.loads(out) if isinstance(out, str) else {"played": False, "error": str(out)}
    finally:
        browser.close()
        server.kill()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
