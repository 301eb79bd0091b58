#!/usr/bin/env python3
"""Sends hostile requests to movrec's RTSP server (gst-rtsp-server) and reports how each was answered.

    hostile.py HOST PORT [--user-file F] [--requests N] [--seconds S] [--seed N]

Standard library only. HOST must be a loopback address (127.x.x.x or localhost): the script
never talks to anything else. Each case opens its own connection(s), sends its requests, and
reads the answer for a bounded time (3 s unless the case says otherwise); afterwards a plain
`OPTIONS rtsp://HOST:PORT/sub RTSP/1.0` on a new connection checks that the server still
answers (any RTSP status line counts; with credentials it is answered 200).

With --user-file F (one line `user:password`, as given to movrec's --rtsp-credentials), the
cases that test a route authenticate with Digest (RFC 2617, MD5) on the same connection when
challenged, so they reach the route behind the authentication; further cases check that every
method without credentials gets 401 with a `WWW-Authenticate: Digest` challenge, and that a
wrong password, a wrong user, a forged nonce and Basic authentication get 401 while the right
password gets 200.

The server admits new connections from one address at 5 a second in bursts of 20, 16 at once
per address and 64 in all, and closes the others at once. So the script spaces its connections
(--pace, 0.25 s) and retries the liveness check a few times; the flood case counts answered
against closed connections and then times how long the server takes to answer again.

Each case's outcome is the status code of the answer ("401"), "closed" (the server closed the
connection without answering), "timeout" (no complete answer in time) or "error: ...". Each
case expects one of:
  refuse  a 4xx/5xx or closed: a 2xx or 3xx, or a timeout, fails the run;
  allow   a 2xx: anything else fails the run;
  any     an answer of any kind or closed (the server must not hang): a timeout fails the run;
  safe    like any, but a 2xx to a SETUP must not name a destination other than the client's
          address nor multicast ("2xx-unsafe");
  wait    the server may wait for more (a timeout is fine), but must not answer 2xx.
Every case also fails when the server does not answer OPTIONS after it.

Prints one JSON object on stdout: {"server", "authenticated", "cases": [{"name", "expect",
"outcome", "detail", "alive", "ok"}...], "failures": [...], "alive_at_end"}. Exit status 0
when every case is as expected and the server answers at the end; 1 otherwise (the reasons
on stderr); 2 for a usage error.
"""
import argparse
import base64
import hashlib
import json
import os
import random
import re
import socket
import sys
import threading
import time

READ_TIMEOUT = 3.0  # seconds a case waits for an answer
PACE = 0.25         # seconds between new connections (the server admits 5 a second)


class Response:
    """A parsed answer: status code, reason, headers (lower-case names, lists), body."""

    def __init__(self, status, reason, headers, body, raw_head):
        self.status, self.reason, self.headers, self.body, self.raw_head = status, reason, headers, body, raw_head

    def header(self, name):
        values = self.headers.get(name.lower())
        return values[0] if values else None


class Client:
    """One TCP connection to the server, with Digest answered on it when credentials are known."""

    last_connect = 0.0

    def __init__(self, target, pace=True, timeout=READ_TIMEOUT):
        self.target = target
        if pace:  # stay under the server's admission rate
            wait = Client.last_connect + target.pace - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        Client.last_connect = time.monotonic()
        self.sock = socket.create_connection((target.host, target.port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.buffer = b""
        self.cseq = 0
        self.challenge = None  # (realm, nonce) of the last Digest challenge on this connection

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, data):
        self.sock.sendall(data)

    def read_response(self, timeout=READ_TIMEOUT):
        """The next RTSP or HTTP answer, skipping interleaved `$` frames; or "closed"/"timeout"."""
        deadline = time.monotonic() + timeout
        while True:
            while self.buffer.startswith(b"$") and len(self.buffer) >= 4:
                length = int.from_bytes(self.buffer[2:4], "big")
                if len(self.buffer) < 4 + length:
                    break
                self.buffer = self.buffer[4 + length:]
            end = self.buffer.find(b"\r\n\r\n")
            if end >= 0 and not self.buffer.startswith(b"$"):
                head = self.buffer[:end].decode("latin-1")
                lines = head.split("\r\n")
                match = re.match(r"(RTSP|HTTP)/\d\.\d (\d{3}) ?(.*)", lines[0])
                if not match:
                    return "error: not a status line: %r" % lines[0][:80]
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    headers.setdefault(name.strip().lower(), []).append(value.strip())
                length = int((headers.get("content-length") or ["0"])[0] or 0)
                if len(self.buffer) >= end + 4 + length:
                    body = self.buffer[end + 4:end + 4 + length]
                    self.buffer = self.buffer[end + 4 + length:]
                    return Response(int(match.group(2)), match.group(3), headers, body, head)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return "timeout"
            except OSError:  # reset by the server
                return "closed"
            if not chunk:
                return "closed"
            self.buffer += chunk

    def request(self, method, uri, headers=(), cseq="auto", version="RTSP/1.0", body=b"", authenticate=True,
                timeout=READ_TIMEOUT):
        """Sends a request and reads its answer; answers a Digest challenge once when credentials are known."""
        given = cseq
        if cseq == "auto":
            self.cseq += 1
            cseq = str(self.cseq)
        lines = ["%s %s %s" % (method, uri, version) if version else "%s %s" % (method, uri)]
        if cseq is not None:
            lines.append("CSeq: %s" % cseq)
        lines += ["%s: %s" % pair for pair in headers]
        if authenticate and self.target.credentials and self.challenge:
            lines.append("Authorization: " + digest(self.target.credentials, self.challenge, method, uri))
        if body:
            lines.append("Content-Length: %d" % len(body))
        try:
            self.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        except OSError:
            return "closed"
        answer = self.read_response(timeout)
        if isinstance(answer, Response) and answer.status == 401:
            found = parse_challenge(answer)
            if found:
                retry = self.challenge is None
                self.challenge = found
                if authenticate and retry and self.target.credentials:
                    return self.request(method, uri, headers, given, version, body, authenticate, timeout)
        return answer


class Target:
    def __init__(self, host, port, credentials, pace):
        self.host, self.port, self.credentials, self.pace = host, port, credentials, pace

    def url(self, path):
        return "rtsp://%s:%d%s" % (self.host, self.port, path)


def parse_challenge(response):
    """(realm, nonce) of a `WWW-Authenticate: Digest` challenge, or None."""
    for value in response.headers.get("www-authenticate", []):
        if value.lower().startswith("digest"):
            fields = dict(re.findall(r'(\w+)="([^"]*)"', value))
            if "nonce" in fields:
                return fields.get("realm", ""), fields["nonce"]
    return None


def md5(text):
    return hashlib.md5(text.encode("latin-1")).hexdigest()


def digest(credentials, challenge, method, uri):
    """An `Authorization: Digest` value: response = MD5(MD5(user:realm:pass):nonce:MD5(method:uri))."""
    user, password = credentials
    realm, nonce = challenge
    response = md5("%s:%s:%s" % (md5("%s:%s:%s" % (user, realm, password)), nonce, md5("%s:%s" % (method, uri))))
    return 'Digest username="%s", realm="%s", nonce="%s", uri="%s", response="%s"' % (user, realm, nonce, uri, response)


def outcome(answer):
    """The short form of an answer: its status code, "closed", "timeout" or "error: ..."."""
    return str(answer.status) if isinstance(answer, Response) else answer


def summary(answer):
    """A status line and a few telling headers, for the report."""
    if not isinstance(answer, Response):
        return answer
    text = "%d %s" % (answer.status, answer.reason)
    for name in ("www-authenticate", "session", "transport", "content-type"):
        if answer.header(name):
            text += "; %s: %s" % (name, answer.header(name)[:120])
    return text


def connect_or_outcome(target, **kwargs):
    """A Client, or the outcome string when the connection itself fails."""
    try:
        return Client(target, **kwargs)
    except socket.timeout:
        return "timeout"
    except OSError as error:
        return "error: connect: %s" % error


def exchange(target, payload, timeout=READ_TIMEOUT):
    """Sends raw bytes on a new connection and reads one answer."""
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client
    with client:
        try:
            client.send(payload)
        except OSError:
            return "closed"
        return client.read_response(timeout)


def one_request(target, method, path_or_uri, **kwargs):
    """One request (Digest answered when credentials are known) on a new connection."""
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client
    with client:
        uri = target.url(path_or_uri) if path_or_uri.startswith("/") else path_or_uri
        return client.request(method, uri, **kwargs)


def server_answers(target, attempts=4):
    """Whether a plain OPTIONS of /sub gets an RTSP answer (retried: the server may be rate-limiting us)."""
    for attempt in range(attempts):
        answer = one_request(target, "OPTIONS", "/sub")
        if isinstance(answer, Response):
            return True
        time.sleep(0.5 * (attempt + 1))
    return False


def described(client, target, path="/main"):
    """DESCRIBE of `path` on this connection; the answer."""
    return client.request("DESCRIBE", target.url(path), headers=[("Accept", "application/sdp")])


def setup_after_describe(target, transport, extra=()):
    """DESCRIBE /main then SETUP of its video stream with `transport`; the SETUP's answer. Never PLAYs."""
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client
    with client:
        answer = described(client, target)
        if not isinstance(answer, Response) or answer.status != 200:
            return "error: DESCRIBE answered %s" % outcome(answer)
        headers = [("Transport", transport)] if transport is not None else []
        setup = client.request("SETUP", target.url("/main/stream=0"), headers=headers + list(extra))
        if isinstance(setup, Response) and setup.header("session"):
            client.request("TEARDOWN", target.url("/main"), headers=[("Session", setup.header("session").split(";")[0])])
        return setup


def unsafe_transport(answer, client_address):
    """Whether a SETUP's answer names a destination other than the client's, or multicast."""
    if not isinstance(answer, Response) or not 200 <= answer.status < 300:
        return False
    chosen = answer.header("transport") or ""
    destination = re.search(r"destination=([^;,]+)", chosen)
    return "multicast" in chosen or (destination is not None and destination.group(1) != client_address)


def setup_verdict(target, transport, extra=()):
    """setup_after_describe, with a 2xx whose transport goes elsewhere reported as "2xx-unsafe"."""
    answer = setup_after_describe(target, transport, extra)
    if unsafe_transport(answer, target.host):
        return "2xx-unsafe", {"transport": transport, "answer": summary(answer)}
    return answer, transport if transport is not None else "no Transport header"


# ---- the cases: each returns (answer, detail) ----

def case_garbage(target, rng):
    # 4 KiB of random bytes (never starting with '$', the interleaved-frame marker), then a blank line.
    data = bytes(rng.randrange(256) for _ in range(4096)).lstrip(b"$") + b"\r\n\r\n"
    return exchange(target, data), "4 KiB random bytes"


def case_no_version(target, rng):
    # A request line without the RTSP/1.0 version.
    return exchange(target, b"DESCRIBE %s\r\nCSeq: 1\r\n\r\n" % target.url("/main").encode()), "DESCRIBE URI (no version)"


def case_bad_version(target, rng):
    # A request line with an unknown version.
    return exchange(target, b"DESCRIBE %s RTSP/9.9\r\nCSeq: 1\r\n\r\n" % target.url("/main").encode()), "RTSP/9.9"


def case_oversized_header(target, rng):
    # One 64 KiB header on an otherwise valid DESCRIBE.
    return one_request(target, "DESCRIBE", "/main", headers=[("X-Big", "A" * 65536)]), "X-Big: 64 KiB"


def case_many_headers(target, rng):
    # 1,000 headers on an otherwise valid DESCRIBE.
    return one_request(target, "DESCRIBE", "/main", headers=[("X-H%d" % i, "v") for i in range(1000)]), "1000 headers"


def case_cseq_missing(target, rng):
    # A DESCRIBE without CSeq.
    return one_request(target, "DESCRIBE", "/main", cseq=None), "no CSeq"


def case_cseq_text(target, rng):
    # A non-numeric CSeq.
    return one_request(target, "DESCRIBE", "/main", cseq="abc"), "CSeq: abc"


def case_cseq_huge(target, rng):
    # A CSeq past 64 bits, and a negative one on the same connection; the first answer reported.
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client, ""
    with client:
        first = client.request("OPTIONS", target.url("/sub"), cseq="99999999999999999999999")
        second = client.request("OPTIONS", target.url("/sub"), cseq="-1")
        echo = first.header("cseq") if isinstance(first, Response) else None
        return first, "CSeq 1e23 echoed as %r; CSeq -1 answered %s" % (echo, outcome(second))


def case_unknown_method(target, rng):
    # An unknown method.
    return one_request(target, "FOO", "/main"), "FOO"


def case_http_get(target, rng):
    # A plain HTTP GET; gst-rtsp-server reads HTTP GET/POST as RTSP-over-HTTP tunnelling.
    return exchange(target, b"GET / HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (target.host.encode(), target.port)), "GET / HTTP/1.1"


def case_http_tunnel(target, rng):
    # RTSP-over-HTTP: a GET with a session cookie, then a POST on another connection carrying a
    # base64 DESCRIBE of /main without credentials; the answer comes on the GET's connection.
    cookie = "hostile%08x" % rng.randrange(1 << 32)
    get = connect_or_outcome(target)
    if isinstance(get, str):
        return get, "GET failed"
    with get:
        get.send(("GET /main HTTP/1.0\r\nx-sessioncookie: %s\r\nAccept: application/x-rtsp-tunnelled\r\n"
                  "Pragma: no-cache\r\nCache-Control: no-cache\r\n\r\n" % cookie).encode())
        # The GET's answer is an HTTP head without Content-Length that is followed by the tunnel.
        deadline = time.monotonic() + READ_TIMEOUT
        while b"\r\n\r\n" not in get.buffer and time.monotonic() < deadline:
            try:
                chunk = get.sock.recv(4096)
            except (socket.timeout, OSError):
                break
            if not chunk:
                break
            get.buffer += chunk
        head, _, get.buffer = get.buffer.partition(b"\r\n\r\n")
        status_line = head.split(b"\r\n")[0].decode("latin-1")
        if not status_line.startswith("HTTP/1.0 200"):
            code = re.match(r"HTTP/\d\.\d (\d{3})", status_line)
            return (code.group(1) if code else "closed"), "tunnel GET answered %r" % status_line
        post = connect_or_outcome(target)
        if isinstance(post, str):
            return post, "tunnel GET 200; POST connect failed"
        with post:
            inner = "DESCRIBE %s RTSP/1.0\r\nCSeq: 1\r\nAccept: application/sdp\r\n\r\n" % target.url("/main")
            post.send(("POST /main HTTP/1.0\r\nx-sessioncookie: %s\r\nContent-Type: application/x-rtsp-tunnelled\r\n"
                       "Content-Length: 32767\r\nPragma: no-cache\r\n\r\n" % cookie).encode()
                      + base64.b64encode(inner.encode()))
            answer = get.read_response()
            return answer, "tunnel GET %r; tunnelled DESCRIBE without credentials: %s" % (status_line, summary(answer))


def case_unknown_path(target, rng):
    # DESCRIBE of a path that is not mounted.
    return one_request(target, "DESCRIBE", "/nothing-here", headers=[("Accept", "application/sdp")]), "/nothing-here"


def case_traversal_path(target, rng):
    # DESCRIBE of a path with dot segments and an encoded NUL.
    return one_request(target, "DESCRIBE", "/../main/%00/../../etc/passwd"), "/../main/%00/../../etc/passwd"


def case_setup_other_destination(target, rng):
    # SETUP asking RTP to go to another host (127.0.0.2): the pre-setup hook refuses it (403).
    return setup_verdict(target, "RTP/AVP;unicast;destination=127.0.0.2;client_port=40000-40001")


def case_setup_multicast(target, rng):
    # SETUP asking for multicast: refused (403).
    return setup_verdict(target, "RTP/AVP;multicast")


def case_setup_multicast_udp(target, rng):
    # SETUP asking for multicast with the lower transport named: refused (403).
    return setup_verdict(target, "RTP/AVP/UDP;multicast;client_port=40000-40001")


def case_setup_destination_second(target, rng):
    # A Transport list whose first choice is fine and second names another host: refused, or
    # answered with the first choice (GStreamer's parser splits a header's value at commas into
    # separate values and both it and the hook read only the first).
    return setup_verdict(target, "RTP/AVP;unicast;client_port=40000-40001,"
                         "RTP/AVP;unicast;destination=127.0.0.2;client_port=40002-40003")


def case_setup_destination_unparseable_first(target, rng):
    # 16 unparseable Transport choices, then one naming another host: never a 2xx to 127.0.0.2.
    verdict, detail = setup_verdict(target, ",".join(["x"] * 16 + ["RTP/AVP;unicast;destination=127.0.0.2;client_port=40000-40001"]))
    return verdict, "16 x 'x' then destination=127.0.0.2" if isinstance(detail, str) else detail


def case_setup_two_transport_headers(target, rng):
    # Two Transport headers: a fine one, then one naming another host. Never a 2xx to 127.0.0.2.
    verdict, detail = setup_verdict(target, "RTP/AVP;unicast;client_port=40000-40001",
                                    extra=[("Transport", "RTP/AVP;unicast;destination=127.0.0.2;client_port=40002-40003")])
    return verdict, "Transport: fine, then Transport: destination=127.0.0.2" if isinstance(detail, str) else detail


def case_setup_destination_case(target, rng):
    # The parameter names in other letter cases: DESTINATION=127.0.0.2, never a 2xx to it.
    return setup_verdict(target, "RTP/AVP;UNICAST;DESTINATION=127.0.0.2;CLIENT_PORT=40000-40001")


def case_setup_no_transport(target, rng):
    # SETUP without a Transport header: 461 expected.
    return setup_verdict(target, None)


def case_setup_own_destination(target, rng):
    # SETUP whose destination is the client's own address (127.0.0.1): allowed (200). No PLAY follows.
    return setup_verdict(target, "RTP/AVP;unicast;destination=127.0.0.1;client_port=40000-40001")


def case_play_without_setup(target, rng):
    # PLAY of /main without SETUP and without Session (454 or 455 expected).
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client, ""
    with client:
        described(client, target)
        return client.request("PLAY", target.url("/main"), headers=[("Range", "npt=0-")]), "PLAY /main, no Session"


def case_bogus_session_play(target, rng):
    # PLAY with a Session header that names no session.
    return one_request(target, "PLAY", "/main", headers=[("Session", "DEADBEEF0000")]), "Session: DEADBEEF0000"


def case_long_session(target, rng):
    # PLAY with a 4 KiB Session header full of separators.
    return one_request(target, "PLAY", "/main", headers=[("Session", ";" * 2048 + "A" * 2048)]), "Session: 4 KiB"


def case_setup_bogus_session(target, rng):
    # SETUP that names a session that does not exist.
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client, ""
    with client:
        described(client, target)
        return client.request("SETUP", target.url("/main/stream=0"),
                              headers=[("Transport", "RTP/AVP/TCP;unicast;interleaved=0-1"),
                                       ("Session", "NOSUCHSESSION")]), "SETUP with Session: NOSUCHSESSION"


def case_teardown_bogus(target, rng):
    # TEARDOWN of a session that does not exist.
    return one_request(target, "TEARDOWN", "/main", headers=[("Session", "12345678")]), "Session: 12345678"


def case_interleaved_first(target, rng):
    # Interleaved `$` frames before any request (one of length 0, one of 1,400 bytes, one on
    # channel 255), then an OPTIONS on the same connection.
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client, ""
    with client:
        frames = b"$\x00\x00\x00" + b"$\x01\x05\x78" + os.urandom(1400) + b"$\xff\x00\x10" + b"\x80" * 16
        try:
            client.send(frames)
        except OSError:
            return "closed", "closed while sending frames"
        return client.request("OPTIONS", target.url("/sub")), "3 frames then OPTIONS"


def case_slow_request(target, rng):
    # A valid OPTIONS sent byte by byte over about 2 seconds.
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client, ""
    with client:
        data = b"OPTIONS %s RTSP/1.0\r\nCSeq: 1\r\n\r\n" % target.url("/sub").encode()
        gap = 2.0 / len(data)
        for index in range(len(data)):
            try:
                client.send(data[index:index + 1])
            except OSError:
                return "closed", "closed after %d bytes" % index
            time.sleep(gap)
        # GStreamer's line reader never completes a request whose CR and LF arrive apart; the
        # server closes a connection left unanswered without a session within about 12 s.
        answer = client.read_response(15.0)
        detail = "%d bytes, %.0f ms apart" % (len(data), gap * 1000)
        if answer == "timeout":  # does one more line end release it?
            try:
                client.send(b"\r\n")
                detail += "; after one more CRLF: %s" % summary(client.read_response(2.0))
            except OSError:
                detail += "; closed"
        return answer, detail


def case_slow_chunks(target, rng):
    # A valid OPTIONS sent in 8 chunks over about 2 seconds, never splitting a CRLF.
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client, ""
    with client:
        data = b"OPTIONS %s RTSP/1.0\r\nCSeq: 1\r\n\r\n" % target.url("/sub").encode()
        cuts = [0, 3, 9, 17, 25, 33, 40, len(data) - 6, len(data)]
        for start, end in zip(cuts, cuts[1:]):
            try:
                client.send(data[start:end])
            except OSError:
                return "closed", "closed after %d bytes" % start
            time.sleep(2.0 / 8)
        return client.read_response(), "8 chunks, 250 ms apart, no CRLF split"


def case_body_mismatch(target, rng):
    # A Content-Length far larger than the body sent: the server waits for the rest (a timeout
    # is expected), then we close the connection.
    answer = exchange(target, b"SET_PARAMETER %s RTSP/1.0\r\nCSeq: 1\r\nContent-Length: 99999999\r\n\r\nabc"
                      % target.url("/main").encode(), timeout=2.0)
    return answer, "Content-Length 99999999, 3 bytes sent"


def case_connection_cap(target, rng):
    # 20 connections held open at once (paced under the rate limit): at most 16 per address answered.
    clients, answered, closed = [], 0, 0
    try:
        for _ in range(20):
            client = connect_or_outcome(target)
            if isinstance(client, str):
                closed += 1
                continue
            clients.append(client)
        time.sleep(0.5)
        for client in clients:
            answer = client.request("OPTIONS", target.url("/sub"), timeout=1.5)
            if isinstance(answer, Response):
                answered += 1
            else:
                closed += 1
    finally:
        for client in clients:
            client.close()
    verdict = "closed" if answered <= 16 else "200"
    return verdict, "20 held open: %d answered, %d closed (the server admits 16 per address)" % (answered, closed)


def case_flood(target, rng, count, seconds, workers=4):
    # Up to `count` quick OPTIONS/DESCRIBE on new connections, from 4 threads, for at most
    # `seconds`; then how long until the server answers again.
    tally, lock, started, numbers = {}, threading.Lock(), time.monotonic(), iter(range(count))

    def worker():
        while time.monotonic() - started < seconds:
            with lock:
                number = next(numbers, None)
            if number is None:
                return
            method, path = ("OPTIONS", "/sub") if number % 2 == 0 else ("DESCRIBE", "/main")
            try:
                client = Client(target, pace=False, timeout=3.0)
            except OSError:
                key = "connect-error"
            else:
                with client:
                    key = outcome(client.request(method, target.url(path), authenticate=False, timeout=3.0))
            with lock:
                tally[key] = tally.get(key, 0) + 1

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 10)
    sent = sum(tally.values())
    elapsed = time.monotonic() - started
    recovered_after = None
    began = time.monotonic()
    while time.monotonic() - began < 5.0:
        answer = one_request(target, "OPTIONS", "/sub")
        if isinstance(answer, Response):
            recovered_after = round(time.monotonic() - began, 2)
            break
        time.sleep(0.2)
    detail = {"sent": sent, "seconds": round(elapsed, 2), "outcomes": tally, "answers_again_after_s": recovered_after}
    return ("closed" if recovered_after is not None else "timeout"), detail


# ---- with credentials ----

UNAUTHENTICATED = [("OPTIONS", "/sub"), ("DESCRIBE", "/main"), ("DESCRIBE", "/nothing-here"), ("SETUP", "/main/stream=0"),
                   ("PLAY", "/main"), ("PAUSE", "/main"), ("TEARDOWN", "/main"), ("GET_PARAMETER", "/main"),
                   ("SET_PARAMETER", "/main"), ("ANNOUNCE", "/main"), ("RECORD", "/main"), ("FOO", "/main")]


# What gst-rtsp-server answers without credentials because it reveals nothing and gives no
# media: OPTIONS and the keep-alives.
OPEN_METHODS = {"OPTIONS", "GET_PARAMETER", "SET_PARAMETER"}


def case_unauthenticated(target, rng):
    # Every method without credentials: refused, and DESCRIBE and SETUP of the media with a
    # Digest challenge (OPTIONS and the keep-alives are answered: they carry nothing). The
    # case's outcome is the first other 2xx if any (which fails), else the first media request
    # without a challenge, else "401".
    results, unchallenged, granted = {}, None, None
    for method, path in UNAUTHENTICATED:
        extra = [("Transport", "RTP/AVP/TCP;unicast;interleaved=0-1")] if method == "SETUP" else []
        answer = one_request(target, method, path, headers=extra, authenticate=False)
        challenged = isinstance(answer, Response) and answer.status == 401 and parse_challenge(answer) is not None
        results["%s %s" % (method, path)] = outcome(answer) + ("" if challenged else " (no Digest challenge)")
        if method in OPEN_METHODS:
            continue
        if not challenged and method in ("DESCRIBE", "SETUP") and path != "/nothing-here" and unchallenged is None:
            unchallenged = answer
        if isinstance(answer, Response) and answer.status < 400 and granted is None:
            granted = answer
    results["every request challenged"] = unchallenged is None
    return (granted or unchallenged or "401"), results


def case_digest(target, credentials):
    """DESCRIBE /main answered with a Digest response computed from `credentials`."""
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client, ""
    with client:
        uri = target.url("/main")
        first = client.request("DESCRIBE", uri, authenticate=False)
        challenge = parse_challenge(first) if isinstance(first, Response) else None
        if challenge is None:
            return first, "no Digest challenge: %s" % summary(first)
        answer = client.request("DESCRIBE", uri, headers=[("Authorization", digest(credentials, challenge, "DESCRIBE", uri))],
                                authenticate=False)
        return answer, "realm %r" % challenge[0]


def case_wrong_password(target, rng):
    # Digest MD5 computed properly with a wrong password: 401.
    user, password = target.credentials
    return case_digest(target, (user, password + "-wrong"))


def case_wrong_user(target, rng):
    # Digest MD5 computed properly for another user with the right password: 401.
    user, password = target.credentials
    return case_digest(target, (user + "x", password))


def case_right_password(target, rng):
    # Digest MD5 with the right user and password: 200.
    return case_digest(target, target.credentials)


def case_forged_nonce(target, rng):
    # The right password, but a nonce the server never gave: 401.
    uri = target.url("/main")
    header = digest(target.credentials, ("GStreamer RTSP Server", "%032x" % rng.randrange(1 << 128)), "DESCRIBE", uri)
    return one_request(target, "DESCRIBE", uri, headers=[("Authorization", header)], authenticate=False), "made-up nonce"


def case_basic_auth(target, rng):
    # Basic authentication with the right password: 401 (only Digest is accepted).
    token = base64.b64encode(("%s:%s" % target.credentials).encode()).decode()
    return one_request(target, "DESCRIBE", "/main", headers=[("Authorization", "Basic " + token)],
                       authenticate=False), "Basic"


def case_digest_other_method(target, rng):
    # A Digest response computed for OPTIONS replayed on DESCRIBE: 401.
    client = connect_or_outcome(target)
    if isinstance(client, str):
        return client, ""
    with client:
        uri = target.url("/main")
        first = client.request("DESCRIBE", uri, authenticate=False)
        challenge = parse_challenge(first) if isinstance(first, Response) else None
        if challenge is None:
            return first, "no Digest challenge"
        header = digest(target.credentials, challenge, "OPTIONS", uri)
        return client.request("DESCRIBE", uri, headers=[("Authorization", header)], authenticate=False), "response for OPTIONS"


# (name, function, expectation without credentials, expectation with credentials)
CASES = [
    ("garbage", case_garbage, "refuse", "refuse"),
    ("request-line-without-version", case_no_version, "refuse", "refuse"),
    ("unknown-version", case_bad_version, "refuse", "refuse"),
    ("oversized-header-64KiB", case_oversized_header, "any", "any"),
    ("1000-headers", case_many_headers, "any", "any"),
    ("cseq-missing", case_cseq_missing, "any", "any"),
    ("cseq-non-numeric", case_cseq_text, "any", "any"),
    ("cseq-huge-and-negative", case_cseq_huge, "any", "any"),
    ("unknown-method-FOO", case_unknown_method, "refuse", "refuse"),
    ("http-get", case_http_get, "refuse", "refuse"),
    ("http-tunnel-describe", case_http_tunnel, "any", "refuse"),
    ("describe-unknown-path", case_unknown_path, "refuse", "refuse"),
    ("describe-traversal-path", case_traversal_path, "refuse", "refuse"),
    ("setup-destination-127.0.0.2", case_setup_other_destination, "refuse", "refuse"),
    ("setup-multicast", case_setup_multicast, "refuse", "refuse"),
    ("setup-multicast-udp", case_setup_multicast_udp, "refuse", "refuse"),
    ("setup-destination-second-choice", case_setup_destination_second, "safe", "safe"),
    ("setup-destination-after-16-unparseable", case_setup_destination_unparseable_first, "safe", "safe"),
    ("setup-two-transport-headers", case_setup_two_transport_headers, "safe", "safe"),
    ("setup-destination-upper-case", case_setup_destination_case, "safe", "safe"),
    ("setup-no-transport", case_setup_no_transport, "refuse", "refuse"),
    ("setup-destination-own-address", case_setup_own_destination, "allow", "allow"),
    ("play-without-setup", case_play_without_setup, "refuse", "refuse"),
    ("play-bogus-session", case_bogus_session_play, "refuse", "refuse"),
    ("play-4KiB-session", case_long_session, "refuse", "refuse"),
    ("setup-bogus-session", case_setup_bogus_session, "refuse", "refuse"),
    ("teardown-bogus-session", case_teardown_bogus, "refuse", "refuse"),
    ("interleaved-frames-first", case_interleaved_first, "any", "any"),
    ("slow-byte-by-byte", case_slow_request, "any", "any"),
    ("slow-chunks", case_slow_chunks, "any", "any"),
    ("content-length-overstated", case_body_mismatch, "wait", "wait"),
]
AUTH_CASES = [
    ("unauthenticated-methods", case_unauthenticated, "refuse"),
    ("digest-wrong-password", case_wrong_password, "refuse"),
    ("digest-wrong-user", case_wrong_user, "refuse"),
    ("digest-forged-nonce", case_forged_nonce, "refuse"),
    ("digest-response-for-other-method", case_digest_other_method, "refuse"),
    ("basic-right-password", case_basic_auth, "refuse"),
    ("digest-right-password", case_right_password, "allow"),
]


def judge(expect, result):
    """Whether an outcome meets the expectation."""
    if expect == "wait":
        return not result.startswith("error") and not result.startswith("2")
    if result == "timeout" or result.startswith("error") or result == "2xx-unsafe":
        return False
    if expect in ("any", "safe"):
        return True
    if expect == "allow":
        return result.isdigit() and result.startswith("2")
    return result == "closed" or (result.isdigit() and result[0] in "45")


def read_credentials(path):
    with open(path, encoding="utf-8") as handle:
        line = handle.readline().strip()
    user, sep, password = line.partition(":")
    if not sep or not user:
        raise ValueError("%s: expected one line user:password" % path)
    return user, password


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--user-file", help="a file with one line user:password")
    parser.add_argument("--requests", type=int, default=2000, help="requests in the flood case (2000)")
    parser.add_argument("--seconds", type=float, default=20.0, help="time bound of the flood case (20)")
    parser.add_argument("--pace", type=float, default=PACE, help="seconds between new connections (0.25)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random bytes")
    args = parser.parse_args()
    if not (args.host.startswith("127.") or args.host == "localhost"):
        parser.error("HOST must be a loopback address")
    credentials = read_credentials(args.user_file) if args.user_file else None
    target = Target(args.host, args.port, credentials, args.pace)
    rng = random.Random(args.seed)

    if not server_answers(target):
        print("hostile.py: %s:%d does not answer OPTIONS before the cases" % (args.host, args.port), file=sys.stderr)
        return 1

    report, failures = [], []

    def run(name, expect, function, *extra):
        started = time.monotonic()
        try:
            answer, detail = function(target, rng, *extra)
            result = outcome(answer)
            if isinstance(answer, Response) and not detail:
                detail = summary(answer)
            elif isinstance(answer, Response):
                detail = {"case": detail, "answer": summary(answer)} if isinstance(detail, str) else detail
        except Exception as error:  # a bug here, or the server misbehaving in a way not foreseen
            result, detail = "error: %s: %s" % (type(error).__name__, error), ""
        alive = server_answers(target)
        ok = judge(expect, result) and alive
        report.append({"name": name, "expect": expect, "outcome": result, "detail": detail, "alive": alive, "ok": ok,
                       "seconds": round(time.monotonic() - started, 2)})
        if not ok:
            why = "expected %s, got %s" % (expect, result) if not judge(expect, result) else "server stopped answering OPTIONS"
            failures.append("%s: %s" % (name, why))

    for name, function, plain, authenticated in CASES:
        run(name, authenticated if credentials else plain, function)
    if credentials:
        for name, function, expect in AUTH_CASES:
            run(name, expect, function)
    run("connection-cap-20-open", "refuse", case_connection_cap)
    time.sleep(4.5)  # let the server's admission bucket refill before the flood
    run("flood", "refuse", case_flood, args.requests, args.seconds)

    alive_at_end = server_answers(target, attempts=6)
    if not alive_at_end:
        failures.append("the server does not answer OPTIONS at the end")
    print(json.dumps({"server": "%s:%d" % (args.host, args.port), "authenticated": bool(credentials), "cases": report,
                      "failures": failures, "alive_at_end": alive_at_end}, indent=2))
    for failure in failures:
        print("hostile.py: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
