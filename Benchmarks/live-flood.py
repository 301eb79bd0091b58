#!/usr/bin/env python3
"""What a flood of requests to the live view costs the recording beside it, with the server's
connection threads at their lowered priority and, for comparison, put back at the recording's.

    live-flood.py MOVREC [--requests 5000] [--size 1920x1080] [--rounds 3]

Each round records 20 s of the test pattern and tone (`movrec record … --live`) twice, once as
shipped and once with the server's listening thread reniced to 0 (every connection thread it
creates inherits that), in alternating order. 3 s after `movrec: recording to`, eight client
threads send `--requests` cheap requests (a POST, answered 405 on a new connection each) to
127.0.0.1. Prints one JSON object: per configuration, the recording's dropped frames and the
live view's left-out frames per round, and how long the flood took. Traffic goes to 127.0.0.1
only; every loop is bounded by the request count and by a minute.
"""
import json, os, re, socket, subprocess, sys, tempfile, threading, time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def flood(port, count, threads=8):
    left = [count]
    lock = threading.Lock()
    deadline = time.monotonic() + 60

    def worker():
        while time.monotonic() < deadline:
            with lock:
                if left[0] == 0:
                    return
                left[0] -= 1
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                    s.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 0\r\n\r\n" % port)
                    s.recv(1024)
            except OSError:
                pass

    began = time.monotonic()
    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.monotonic() - began


def renice_server(pid):
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/comm") as f:
            if f.read().strip() == "MHD-listen":
                subprocess.run(["renice", "-n", "0", "-p", task], check=True, stdout=subprocess.DEVNULL)
                return True
    return False


def record(movrec, size, requests, reniced):
    port = free_port()
    with tempfile.TemporaryDirectory() as work:
        log = open(os.path.join(work, "stderr"), "w+")
        child = subprocess.Popen([movrec, "record", os.path.join(work, "clip.mov"), "--video", "testsrc", "--size", size,
                                  "--audio", "tone", "--duration", "20", "--live", f"127.0.0.1:{port}"],
                                 stdout=log, stderr=log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "recording to" not in open(log.name).read():
            time.sleep(0.05)
        if reniced and not renice_server(child.pid):
            raise SystemExit("no MHD-listen thread to renice")
        time.sleep(3)
        took = flood(port, requests)
        status = ""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(b"GET /status.json HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % port)
                status = s.recv(4096).decode(errors="replace")
        except OSError:
            pass
        child.wait(timeout=60)
        text = open(log.name).read()
        # The result line names dropped frames only when there are some.
        frames = re.search(r"(\d+) frames, ", text)
        dropped = re.search(r"(\d+) dropped", text)
        left_out = re.search(r'"droppedFrames":(\d+)', status)
        return {"frames": int(frames.group(1)) if frames else None,
                "dropped": int(dropped.group(1)) if dropped else (0 if frames else None),
                "liveLeftOut": int(left_out.group(1)) if left_out else None, "floodSeconds": round(took, 2)}


def main():
    args = sys.argv[1:]
    movrec = args[0]
    option = lambda name, default: args[args.index(name) + 1] if name in args else default
    requests, size, rounds = int(option("--requests", "5000")), option("--size", "1920x1080"), int(option("--rounds", "3"))
    results = {"lowered": [], "atRecordingPriority": []}
    for round_ in range(rounds):
        order = [False, True] if round_ % 2 == 0 else [True, False]
        for reniced in order:
            results["atRecordingPriority" if reniced else "lowered"].append(record(movrec, size, requests, reniced))
    print(json.dumps(results))


main()
