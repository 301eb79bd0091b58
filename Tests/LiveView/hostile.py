#!/usr/bin/env python3
"""Sends hostile requests to a live view server on 127.0.0.1 and reports how each was answered.

    hostile.py PORT [--rounds N]

Each round sends every kind of bad request below on a connection of its own and reads the
answer for up to a second. Prints one JSON object: counts of answers by status, "closed" for
connections the server closed without answering, "timeout" for none in time, and "leaks" for
answers that carried a local file's text. Traffic goes to 127.0.0.1 only; the loop is bounded
by --rounds and by a minute in all.
"""
import json, socket, sys, time

LONG = "A" * 100_000


def requests():
    yield b"GET /../../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /hls/../../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /hls/init-..%2f..%2fetc%2fpasswd.mp4 HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /hls/part-1.2.3.m4s HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /hls/seg-99999999999999999999.m4s HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /hls/seg--1.m4s HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /hls/live.m3u8?_HLS_msn=abc HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /hls/live.m3u8?_HLS_msn=999999999 HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET /hls/live.m3u8?_HLS_part=1 HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
    yield b"PUT /stream.mp4 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
    yield b"DELETE /hls/live.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET / HTTP/9.9\r\nHost: x\r\n\r\n"
    yield b"GET / HTTP/1.1\r\n\r\n"  # no Host header
    yield b"GET /" + LONG.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + LONG.encode() + b"\r\n\r\n"
    yield b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(2000)) + b"\r\n"
    yield b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256))  # a TLS hello
    yield bytes((i * 37) % 256 for i in range(4096))  # binary garbage
    yield b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"
    yield b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
    yield b"GET /nothing\x00here HTTP/1.1\r\nHost: x\r\n\r\n"


SLOW = b"GET / HTTP/1.1\r\nHost: x\r\n"  # headers never finished: waits for the idle limit


def send(port, payload):
    s = socket.create_connection(("127.0.0.1", port), timeout=1)
    try:
        s.sendall(payload)
    except OSError:
        pass
    answer = b""
    try:
        while b"\r\n" not in answer:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
        # Read a little of the body too, to look for leaked files.
        s.settimeout(0.2)
        while len(answer) < 8192:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    except socket.timeout:
        if not answer:
            return "timeout", b""
    except OSError:
        pass
    finally:
        s.close()
    if not answer.startswith(b"HTTP/1."):
        return "closed", answer
    return answer.split(b" ", 2)[1].decode(), answer


def main():
    port = int(sys.argv[1])
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 100
    counts, leaks, sent = {}, 0, 0
    deadline = time.time() + 60
    for round in range(rounds):
        for payload in list(requests()) + ([SLOW] if round < 3 else []):
            if time.time() > deadline:
                break
            status, answer = send(port, payload)
            counts[status] = counts.get(status, 0) + 1
            leaks += b"root:" in answer
            sent += 1
    print(json.dumps({"sent": sent, "answers": counts, "leaks": leaks}))


if __name__ == "__main__":
    main()
