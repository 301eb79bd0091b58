#!/usr/bin/env python3
"""Case k's latency: capture to the frame presented in headless Chromium, p50 and p95.

    latency.py --movrec PATH --work DIR [--seconds S] [--rounds N]

Contenders, alternated round by round, each recording (or encoding) the 720p30 test pattern and
a tone in real time:
  mse         movrec record --live; the preview page on /video.mp4 (muted): each frame's capture
              time from `prft`, its presentation from requestVideoFrameCallback
  mse+sound   the same page after its sound button: /stream.mp4 with the AAC track
  ll-hls      movrec record --live; hls.js (low-latency mode) on /hls/live.m3u8
  ffmpeg-hls  ffmpeg -re ... -f hls -hls_segment_type fmp4 -hls_time 1 with program date times,
              served statically, played by the same hls.js page
For HLS the latency is the wall clock minus hls.js's `playingDate` (the program date time of
the frame playing), sampled every 100 ms. hls.js comes from the gradio wheel on PyPI (its
frontend bundles hls.js 1.6), downloaded once into DIR. Prints one JSON object.
"""
import argparse, json, os, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.parse

# The live view's access token for the measured server (16 characters at least), given through
# the environment as a user would, never on the command line.
TOKEN = "latency-measurement-token"

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "LiveView"))
from browser import Browser  # noqa: E402
from hlsjs import hls_js_directory  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hls_js(work):
    """hls.js and its page, extracted from the gradio wheel into DIR/hlsjs (Tests/LiveView/hlsjs.py)."""
    return hls_js_directory(os.path.join(work, "hlsjs"))


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(p * len(s)))] if s else float("nan")


def serve(directory):
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"], cwd=directory,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    return port, process


def measure(browser, url, ready, collect, seconds, setup=None):
    browser.open(url, 800, 600)
    deadline = time.time() + 20
    while time.time() < deadline and browser.evaluate(ready) is not True:
        time.sleep(0.1)
    if setup:
        browser.evaluate(setup)
    time.sleep(3)  # settle at the live edge
    browser.evaluate(collect + ".length = 0")
    time.sleep(seconds)
    return browser.evaluate(collect) or []


def run_contender(name, args, hls_dir):
    work = tempfile.mkdtemp(prefix="movrec-latency-")
    port = free_port()
    length = args.seconds + 10
    server = None
    if name == "ffmpeg-hls":
        producer = subprocess.Popen(
            ["ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30",
             "-re", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000", "-t", str(length),
             "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0",
             "-c:a", "aac", "-f", "hls", "-hls_segment_type", "fmp4", "-hls_time", "1", "-hls_list_size", "6",
             "-hls_flags", "delete_segments+program_date_time+independent_segments", os.path.join(work, "live.m3u8")])
        time.sleep(3)
        # The page and the playlist from one server: python's sends no CORS headers.
        for name_ in ("hls.js", "index.html"):
            shutil.copy(os.path.join(hls_dir[0], name_), work)
        server_port, server = serve(work)
        src = "live.m3u8"
    else:
        producer = subprocess.Popen(
            [args.movrec, "record", os.path.join(work, "clip.mov"), "--video", "testsrc", "--size", "1280x720", "--audio", "tone",
             "--duration", str(length), "--live", f"127.0.0.1:{port}", "--quiet", "--overwrite"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, MOVREC_LIVE_TOKEN=TOKEN))
        time.sleep(1.5)
        # hls.js's page is of another origin, which only a server with a token lets read.
        src = f"http://127.0.0.1:{port}/hls/live.m3u8?token={TOKEN}"
    browser = Browser(800, 600)
    try:
        if name.startswith("mse"):
            values = measure(browser, f"http://127.0.0.1:{port}/?token={TOKEN}", "window.liveView && liveView.frames > 30",
                             "liveView.latencies", args.seconds,
                             setup="document.getElementById('sound').click()" if name == "mse+sound" else None)
        else:
            hls_port = server_port if name == "ffmpeg-hls" else hls_dir[1]
            values = measure(browser, f"http://127.0.0.1:{hls_port}/index.html?src=" + urllib.parse.quote(src, safe=":/"),
                             "window.latencies && latencies.length > 5", "latencies", args.seconds)
    finally:
        browser.close()
        producer.send_signal(signal.SIGINT)
        try:
            producer.wait(timeout=30)
        except subprocess.TimeoutExpired:
            producer.kill()
        if server:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)
    return [v for v in values if isinstance(v, (int, float))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--movrec", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only")
    args = parser.parse_args()
    directory = hls_js(args.work)
    hls_port, hls_server = serve(directory)
    names = ["mse", "mse+sound", "ll-hls", "ffmpeg-hls"]
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    runs = {n: [] for n in names}
    try:
        for round in range(args.rounds):
            order = names[round % len(names):] + names[:round % len(names)]
            for name in order:
                values = run_contender(name, args, (directory, hls_port))
                runs[name].append({"p50": percentile(values, 0.5), "p95": percentile(values, 0.95), "samples": len(values)})
    finally:
        hls_server.kill()
    print(json.dumps(runs))


if __name__ == "__main__":
    main()
