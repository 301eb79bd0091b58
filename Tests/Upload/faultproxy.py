#!/usr/bin/env python3
"""TCP proxy between the upload client and the local S3 server that injects network faults.

Usage: python3 faultproxy.py --target 127.0.0.1:P [--reset-after-bytes N] [--resets K]
           [--stall-seconds S] [--stalls K] [--stall-after-bytes B] [--slowdown K]
           [--down-seconds S] [--down-file PATH] [--ignore-stdin]

Prints one JSON line {"port": Q} once listening on 127.0.0.1, then runs until stdin reaches EOF
or SIGTERM/SIGINT. Each fault hits the first K connections/requests that qualify; after that,
traffic passes through untouched. Every fault applied is logged to stderr as a JSON line:
{"fault": "reset"|"stall"|"slowdown"|"down", "connection": n, ...}.

The client->server direction is parsed as HTTP/1.1 (request head + Content-Length body) so the
proxy knows request boundaries; a request with Transfer-Encoding: chunked switches that
connection to raw pass-through. At most 64 connections are served at once.
"""
import argparse
import json
import os
import socket
import struct
import sys
import threading
import time

import lifetime

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--target", required=True, help="HOST:PORT of the S3 server")
ap.add_argument("--port", type=int, default=0, help="listen port (0 = pick a free one)")
ap.add_argument("--reset-after-bytes", type=int, help="RST the client after N client->server bytes")
ap.add_argument("--resets", type=int, default=1, help="...on this many connections (default 1)")
ap.add_argument("--stall-seconds", type=float, help="go silent this long mid-request, then close")
ap.add_argument("--stalls", type=int, default=1, help="...on this many requests (default 1)")
ap.add_argument("--stall-after-bytes", type=int, default=4096,
                help="body bytes forwarded before the stall; requests with smaller bodies don't "
                     "qualify (0 = stall right after the head, any request)")
ap.add_argument("--slowdown", type=int, default=0, help="answer the first K requests 503 SlowDown")
ap.add_argument("--down-seconds", type=float, default=0, help="refuse connections for S s after start")
ap.add_argument("--down-file", help="refuse connections while this file exists")
ap.add_argument("--ignore-stdin", action="store_true", help="don't shut down on stdin EOF")
args = ap.parse_args()
host, _, port = args.target.rpartition(":")
TARGET = (host, int(port))
MAX_HEAD = 64 * 1024
START = time.monotonic()


def log(**fields):
    sys.stderr.write(json.dumps(fields) + "\n")
    sys.stderr.flush()


class Budget:
    """Thread-safe countdown: take() is true for the first k calls only."""
    def __init__(self, k):
        self.k, self.lock = k or 0, threading.Lock()

    def take(self):
        with self.lock:
            if self.k > 0:
                self.k -= 1
                return True
            return False


RESETS = Budget(args.resets if args.reset_after_bytes is not None else 0)
STALLS = Budget(args.stalls if args.stall_seconds is not None else 0)
SLOWDOWNS = Budget(args.slowdown)

SLOWDOWN_BODY = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
                 b'<Message>Please reduce your request rate.</Message></Error>')
SLOWDOWN_RESPONSE = (b"HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(SLOWDOWN_BODY)
                     + SLOWDOWN_BODY)


def network_down():
    """True during the first --down-seconds after start, or while --down-file exists."""
    return (time.monotonic() - START < args.down_seconds
            or (args.down_file is not None and os.path.exists(args.down_file)))


def rst_close(sock):
    """Close with SO_LINGER 0, so the peer gets a TCP RST (ECONNRESET) instead of a FIN."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


def shut(sock):
    """Shut a socket down both ways; this also wakes a thread blocked in recv() on it."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class Closed(Exception):
    pass


class Connection:
    def __init__(self, n, client):
        self.n, self.client = n, client
        self.upstream = None
        self.pump = None           # thread copying server -> client
        self.buf = b""             # client bytes received but not yet handled
        self.sent = 0              # client -> server bytes forwarded (for --reset-after-bytes)
        self.reset_checked = False
        self.stalled = False
        self.request_line = ""     # e.g. "PUT /bucket/key?partNumber=1&uploadId=... HTTP/1.1"

    def recv(self):
        data = self.client.recv(65536)
        if not data:
            raise Closed()
        return data

    def read_head(self):
        """Returns the next request head (bytes up to and including CRLFCRLF), None on clean EOF."""
        while b"\r\n\r\n" not in self.buf:
            if len(self.buf) > MAX_HEAD:
                raise Closed()
            try:
                self.buf += self.recv()
            except Closed:
                if self.buf:
                    raise
                return None
        end = self.buf.index(b"\r\n\r\n") + 4
        head, self.buf = self.buf[:end], self.buf[end:]
        return head

    def forward(self, data):
        """Send client bytes to the server. Fault "reset": once this connection has sent N bytes,
        forward exactly N and reset the client mid-upload, as a dropped network would."""
        n = args.reset_after_bytes
        if n is not None and not self.reset_checked and self.sent + len(data) >= n:
            self.reset_checked = True
            if RESETS.take():
                self.upstream.sendall(data[:n - self.sent])
                log(fault="reset", connection=self.n, request=self.request_line, after_bytes=n)
                rst_close(self.client)
                raise Closed()
        self.upstream.sendall(data)
        self.sent += len(data)

    def forward_body(self, length, stall_at):
        """Forward `length` body bytes; if stall_at is set, stall after that many."""
        while length > 0:
            if not self.buf:
                self.buf = self.recv()
            limit = length if stall_at is None else min(length, stall_at)
            chunk, self.buf = self.buf[:limit], self.buf[limit:]
            if chunk:
                self.forward(chunk)
            length -= len(chunk)
            if stall_at is not None:
                stall_at -= len(chunk)
                if stall_at == 0:
                    self.stall()

    def stall(self):
        """Fault "stall": stop forwarding both ways for S seconds (the client sees a silent,
        open connection; its timeout should fire), then close both sides."""
        self.stalled = True
        log(fault="stall", connection=self.n, request=self.request_line,
            seconds=args.stall_seconds, after_body_bytes=args.stall_after_bytes)
        time.sleep(args.stall_seconds)
        raise Closed()

    def slowdown(self, length, chunked):
        """Fault "slowdown": answer 503 SlowDown ourselves, never contacting the server.
        Connection: close; then drain whatever body the client still sends (it may have
        waited for 100-continue and send none) so that closing doesn't RST our response."""
        log(fault="slowdown", connection=self.n, request=self.request_line)
        self.client.sendall(SLOWDOWN_RESPONSE)
        self.client.shutdown(socket.SHUT_WR)
        remaining = (1 << 62 if chunked else length) - len(self.buf)
        self.client.settimeout(2)  # stop at 2 s of silence, or after 10 s in all
        deadline = time.monotonic() + 10
        try:
            while remaining > 0 and time.monotonic() < deadline:
                remaining -= len(self.recv())
        except (OSError, Closed):
            pass
        raise Closed()

    def refuse(self):
        """Fault "down": reset the connection at once, the server is never contacted."""
        log(fault="down", connection=self.n)
        rst_close(self.client)

    def connect_upstream(self):
        if self.upstream is None:
            self.upstream = socket.create_connection(TARGET, timeout=10)
            self.upstream.settimeout(None)
            self.pump = threading.Thread(target=self.server_to_client, daemon=True)
            self.pump.start()

    def server_to_client(self):
        try:
            while True:
                data = self.upstream.recv(65536)
                if not data or self.stalled:
                    break
                self.client.sendall(data)
        except OSError:
            pass
        if not self.stalled:
            shut(self.client)  # server closed: pass the close on (wakes the other thread)

    def run(self):
        clean_eof = False
        try:
            if network_down():
                return self.refuse()
            while True:
                head = self.read_head()
                if head is None:
                    clean_eof = True
                    return
                if network_down():  # also cut kept-alive connections
                    return self.refuse()
                self.request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
                headers = {}
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    headers[name.strip().lower()] = value.strip()
                chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
                length = 0 if chunked else int(headers.get(b"content-length", 0))
                if SLOWDOWNS.take():
                    self.slowdown(length, chunked)
                self.connect_upstream()
                if chunked:  # can't frame it: pass everything through from here on
                    self.forward(head + self.buf)
                    self.buf = b""
                    while True:
                        self.forward(self.recv())
                stall_at = None
                if (args.stall_after_bytes == 0 or length > args.stall_after_bytes) and STALLS.take():
                    stall_at = args.stall_after_bytes
                self.forward(head)
                if stall_at == 0:
                    self.stall()
                self.forward_body(length, stall_at)
        except (Closed, OSError, ValueError):
            pass
        finally:
            self.close(drain=clean_eof)

    def close(self, drain):
        if self.upstream is not None:
            if drain:  # the client finished cleanly: let the server's last reply through first
                try:
                    self.upstream.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                self.pump.join(30)
            shut(self.upstream)
            self.pump.join(5)
            self.upstream.close()
        shut(self.client)
        self.client.close()


def serve(listener):
    slots = threading.BoundedSemaphore(64)  # bound on concurrent connections
    n = 0
    while True:
        slots.acquire()
        client, _ = listener.accept()
        n += 1
        threading.Thread(target=handle, args=(Connection(n, client), slots), daemon=True).start()


def handle(conn, slots):
    try:
        conn.run()
    finally:
        slots.release()


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", args.port))
listener.listen(128)
threading.Thread(target=serve, args=(listener,), daemon=True).start()
print(json.dumps({"port": listener.getsockname()[1]}), flush=True)

lifetime.wait_until_told_to_stop(watch_stdin=not args.ignore_stdin)
