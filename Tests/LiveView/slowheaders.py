#!/usr/bin/env python3
"""Holds a live view server's connection slots with request heads that trickle, from several
loopback addresses, while a viewer on 127.0.0.1 keeps asking for /status.json.

    slowheaders.py PORT [--seconds S] [--addresses 127.0.0.2,127.0.0.3,...] [--per-address N]

Each attacker connection sends a request line and one header, then one more byte every 4 s,
never finishing its head; when the server closes one, it opens another at once. The viewer opens
a fresh connection every 0.5 s and asks for /status.json with a 3 s timeout. Prints one JSON
object: the viewer's latencies in seconds (null for a request that got no answer), its statuses,
how many attacker connections the server closed, and the most held open at once. Traffic goes to
loopback addresses only; it stops by itself after --seconds (at most 60) and opens at most 5,000
attacker connections.
"""
import json, socket, sys, threading, time


def attacker(port, address):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(1)
    s.bind((address, 0))
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /status.json HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)
    s.setblocking(False)
    return s


def is_closed(s):
    try:
        return s.recv(4096) == b""  # an answer or the end: either way the slot is free again
    except BlockingIOError:
        return False
    except OSError:
        return True


def viewer(port, until, report):
    while time.monotonic() < until:
        began = time.monotonic()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
                s.sendall(b"GET /status.json HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % port)
                data = s.recv(4096)
            report["latencies"].append(round(time.monotonic() - began, 3))
            report["statuses"].append(int(data.split(b" ")[1]) if data.startswith(b"HTTP/") else 0)
        except OSError:
            report["latencies"].append(None)
            report["statuses"].append(0)
        time.sleep(max(0.0, 0.5 - (time.monotonic() - began)))


def main():
    args = sys.argv[1:]
    port = int(args[0])
    seconds = min(60.0, float(args[args.index("--seconds") + 1])) if "--seconds" in args else 12.0
    addresses = args[args.index("--addresses") + 1].split(",") if "--addresses" in args else [f"127.0.0.{i}" for i in range(2, 6)]
    assert all(a.startswith("127.") for a in addresses), "loopback addresses only"
    per_address = int(args[args.index("--per-address") + 1]) if "--per-address" in args else 16
    until = time.monotonic() + seconds
    report = {"latencies": [], "statuses": [], "closedByServer": 0, "mostHeld": 0, "opened": 0}
    watcher = threading.Thread(target=viewer, args=(port, until, report))
    held = []  # (socket, address, next byte due)
    for address in addresses:
        for _ in range(per_address):
            try:
                held.append((attacker(port, address), address, time.monotonic() + 4))
                report["opened"] += 1
            except OSError:
                pass
    time.sleep(0.5)  # every slot taken before the viewer starts
    watcher.start()
    while time.monotonic() < until:
        kept = []
        for s, address, due in held:
            if is_closed(s):
                s.close()
                report["closedByServer"] += 1
                if report["opened"] < 5000:
                    try:
                        kept.append((attacker(port, address), address, time.monotonic() + 4))
                        report["opened"] += 1
                    except OSError:
                        pass
                continue
            if time.monotonic() >= due:
                try:
                    s.send(b"X")
                except OSError:
                    pass
                due = time.monotonic() + 4
            kept.append((s, address, due))
        held = kept
        report["mostHeld"] = max(report["mostHeld"], len(held))
        time.sleep(0.05)
    watcher.join()
    for s, _, _ in held:
        s.close()
    print(json.dumps(report))


main()
