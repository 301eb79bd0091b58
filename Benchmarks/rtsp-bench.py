#!/usr/bin/env python3
"""Case n: the RTSP server's latency and cost, beside the peer a user would script.

    python3 rtsp-bench.py --movrec PATH [--rounds N] [--seconds S] [--only latency|cost]

Latency: capture -> decoded picture in GStreamer's rtspsrc latency=0 (rtsp-latency.py: the
RTCP sender reports' capture time against the decoder's output) for movrec's /sub and /main
(a 720p30 veryfast recording of the test pattern with AAC) and for rtsp-peer-server.py (a
gst-rtsp-server script, x264enc tune=zerolatency ultrafast, 640x360), alternated round by round.

Cost: movrec record's own CPU (user + system, from wait4) over S seconds of the same recording,
alone and serving RTSP to 1 and to 8 ffmpeg clients (-c copy, TCP) on /main and on /sub,
alternated; each ratio against the alone run of its round. Dropped frames from the result line.

Prints a line per measurement, tab-separated: `latency NAME P50_MS P95_MS FRAMES` and
`cost NAME CPU_SECONDS DROPPED`; with --json one object {"latency": {name: [{"p50", "p95",
"samples"}...]}, "cost": {name: [{"cpu", "dropped"}...]}}.
"""
import argparse, json, os, random, re, socket, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
GST_PYTHON = "/usr/bin/python3"  # Debian's Python, which has GStreamer's bindings


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_line(process, text, seconds=30):
    """Reads the process's standard error until a line holds `text`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        if text in line:
            return True
    return False


def start_movrec(movrec, work, port, seconds, rtsp=True):
    movie = os.path.join(work, "rtsp-bench-%d.mov" % random.randrange(1 << 30))
    command = [movrec, "record", movie, "--video", "testsrc", "--size", "1280x720", "--audio", "tone",
               "--preset", "veryfast", "--duration", str(seconds), "--quiet", "--overwrite"]
    if rtsp:
        command += ["--rtsp", "127.0.0.1:%d" % port]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait_for_line(process, "recording to"):
        process.kill()
        raise SystemExit("rtsp-bench: movrec did not start: " + process.stderr.read()[-400:])
    return process, movie


def finish(process, movie):
    """Waits for movrec; returns its CPU seconds and the frames its result line says it dropped."""
    _, status, usage = os.wait4(process.pid, 0)
    output = process.stdout.read()
    process.returncode = status
    if os.path.exists(movie):
        os.remove(movie)
    dropped = re.search(r"(\d+) dropped", output)
    return usage.ru_utime + usage.ru_stime, int(dropped.group(1)) if dropped else 0


def latency(url, seconds):
    """rtsp-latency.py's figures. In about one session in six rtspsrc never attaches the
    reference-timestamp meta, though the sender reports come (ffmpeg syncs on them); such a
    session is tried again, up to four times, each try said on standard error."""
    for attempt in (1, 2, 3, 4):
        result = subprocess.run([GST_PYTHON, os.path.join(HERE, "rtsp-latency.py"), url, "--seconds", str(seconds), "--json"],
                                capture_output=True, text=True, timeout=seconds + 60)
        if result.returncode == 0:
            return json.loads(result.stdout)
        print("rtsp-bench: try %d of rtsp-latency.py %s: %s" % (attempt, url, result.stderr.strip()[-300:]), file=sys.stderr)
    raise SystemExit("rtsp-bench: rtsp-latency.py %s failed four times" % url)


def latency_round(movrec, work, seconds, report):
    for name in random.sample(["movrec /sub", "movrec /main", "peer /sub"], 3):
        port = free_port()
        if name.startswith("peer"):
            server = subprocess.Popen([GST_PYTHON, os.path.join(HERE, "rtsp-peer-server.py"), str(port)],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            server.stdout.readline()  # its URL: listening
            measured = latency("rtsp://127.0.0.1:%d/sub" % port, seconds)
            server.terminate()
            server.wait(timeout=20)
        else:
            process, movie = start_movrec(movrec, work, port, seconds + 20)
            measured = latency("rtsp://127.0.0.1:%d%s" % (port, name.split()[1]), seconds)
            process.send_signal(2)
            finish(process, movie)
        report.setdefault(name, []).append({"p50": measured["p50_ms"], "p95": measured["p95_ms"], "samples": measured["frames"]})


def clients(port, path, count, seconds):
    return [subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-rtsp_transport", "tcp", "-i",
                              "rtsp://127.0.0.1:%d%s" % (port, path), "-t", str(seconds), "-c", "copy", "-f", "null", "-"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(count)]


def cost_round(movrec, work, seconds, report):
    cases = [("alone", None, 0), ("/main, 1 client", "/main", 1), ("/main, 8 clients", "/main", 8),
             ("/sub, 1 client", "/sub", 1), ("/sub, 8 clients", "/sub", 8)]
    for name, path, count in random.sample(cases, len(cases)):
        port = free_port()
        process, movie = start_movrec(movrec, work, port, seconds, rtsp=path is not None)
        readers = clients(port, path, count, seconds + 30) if path else []
        cpu, dropped = finish(process, movie)
        for reader in readers:
            reader.kill()
            reader.wait()
        report.setdefault(name, []).append({"cpu": cpu, "dropped": dropped})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--movrec", required=True)
    parser.add_argument("--work", default="/tmp")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--only", choices=("latency", "cost"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = {"latency": {}, "cost": {}}
    for _ in range(args.rounds):
        if args.only != "cost":
            latency_round(args.movrec, args.work, args.seconds, result["latency"])
        if args.only != "latency":
            cost_round(args.movrec, args.work, args.seconds, result["cost"])
    if args.json:
        print(json.dumps(result))
        return
    for name, rounds in result["latency"].items():
        for r in rounds:
            print("latency\t%s\t%s\t%s\t%s" % (name, r["p50"], r["p95"], r["samples"]))
    for name, rounds in result["cost"].items():
        for r in rounds:
            print("cost\t%s\t%.3f\t%d" % (name, r["cpu"], r["dropped"]))


if __name__ == "__main__":
    main()
