#!/usr/bin/env python3
"""Sends hostile requests to a live view server on 127.0.0.1 and reports how each was answered.

    [HOSTILE_TOKEN=…] hostile.py PORT [--rounds N] [--seconds S]

The requests name the server as it expects (`Host: 127.0.0.1:PORT`) and, when the environment
variable HOSTILE_TOKEN holds the server's access token (never the command line, where `ps`
shows it), carry it as `Authorization: Bearer`, so they reach the routes: traversal, numbers
out of range, bad `_HLS_msn`, parts far ahead, encoded NULs and line breaks, the bearer scheme
in other cases. A few name a foreign host (421 without a token) or carry a wrong token (401 with
one), and some are malformed HTTP that libmicrohttpd answers itself.

Each round sends every request below on a connection of its own, from the loopback addresses
127.0.0.2 to 127.0.0.33 in turn (so the server's limit of 100 requests a second per address
does not answer 429), and reads the answer until the server closes or for up to a second. The
loop is bounded by --rounds (100) and --seconds (120).

Prints one JSON object: "sent"; "answers", counts by status ("closed" when the server closed
without answering, "timeout" for no answer in time); "names", those counts per request;
"slowest", each request's longest wait in seconds; "unexpected", requests answered otherwise
than expected (at most 20, with "unexpectedCount"); "leaks", answers that carried a local
file's text; "injected", answers that carried a header the request smuggled into its path.
"""
import json, os, socket, sys, time

LONG = b"A" * 100_000
SOURCES = ["127.0.0.%d" % i for i in range(2, 34)]
OK, NOT_FOUND, BAD = {"200"}, {"404"}, {"400"}
REFUSED_BY_PARSER = {"400", "413", "414", "431", "closed"}


def requests(port, token, number):
    """(name, bytes, expected statuses) for one round."""
    host = b"Host: 127.0.0.1:%d\r\n" % port
    bearer = b"Authorization: Bearer %s\r\n" % token.encode() if token else b""

    def get(path, extra=b"", method=b"GET", auth=None, host_line=host, version=b"HTTP/1.1"):
        return (method + b" " + path + b" " + version + b"\r\n" + host_line + (bearer if auth is None else auth)
                + b"Connection: close\r\n" + extra + b"\r\n")

    # The routes: each a well-formed request the server must answer itself.
    yield "traversal", get(b"/../../../../etc/passwd"), NOT_FOUND
    yield "traversal-hls", get(b"/hls/../../../../etc/passwd"), NOT_FOUND
    yield "traversal-encoded", get(b"/%2e%2e/%2e%2e/%2e%2e/etc/passwd"), NOT_FOUND
    yield "traversal-init", get(b"/hls/init-..%2f..%2f..%2fetc%2fpasswd.mp4"), NOT_FOUND
    yield "traversal-backslash", get(b"/hls/..\\..\\..\\etc\\passwd"), NOT_FOUND
    yield "part-three-numbers", get(b"/hls/part-1.2.3.m4s"), NOT_FOUND
    yield "seg-huge", get(b"/hls/seg-99999999999999999999.m4s"), NOT_FOUND
    yield "seg-negative", get(b"/hls/seg--1.m4s"), NOT_FOUND
    yield "seg-far-ahead", get(b"/hls/seg-999999999.m4s"), NOT_FOUND
    yield "part-far-ahead", get(b"/hls/part-999999999.0.m4s"), NOT_FOUND
    yield "part-huge-index", get(b"/hls/part-0.999999999.m4s"), NOT_FOUND
    yield "init-missing", get(b"/hls/init-999999999.mp4"), NOT_FOUND
    yield "status-nul", get(b"/status.json%00x"), NOT_FOUND
    yield "status-nul-end", get(b"/status.json%00"), NOT_FOUND
    yield "status-crlf", get(b"/status.json%0d%0aX-Injected:%20yes"), NOT_FOUND
    yield "msn-abc", get(b"/hls/live.m3u8?_HLS_msn=abc"), BAD
    yield "msn-ahead", get(b"/hls/live.m3u8?_HLS_msn=999999999"), BAD
    yield "msn-too-long", get(b"/hls/live.m3u8?_HLS_msn=99999999999999999999"), BAD
    yield "msn-negative", get(b"/hls/live.m3u8?_HLS_msn=-1"), BAD
    yield "msn-nul", get(b"/hls/live.m3u8?_HLS_msn=1%00"), BAD
    yield "part-without-msn", get(b"/hls/live.m3u8?_HLS_part=1"), BAD
    yield "part-abc", get(b"/hls/live.m3u8?_HLS_msn=0&_HLS_part=x"), BAD
    yield "playlist", get(b"/hls/live.m3u8"), OK
    yield "status", get(b"/status.json"), OK
    yield "status-escaped", get(b"/status%2Ejson"), OK
    yield "status-query", get(b"/status.json?" + b"a=b&" * 20 + b"token"), OK
    # A thousand arguments outgrow the connection's memory: libmicrohttpd closes it.
    yield "many-arguments", get(b"/status.json?" + b"a=b&" * 1000), REFUSED_BY_PARSER
    yield "page", get(b"/"), OK
    yield "hls-page", get(b"/hls/"), OK
    yield "head-status", get(b"/status.json", method=b"HEAD"), OK
    yield "unknown", get(b"/nothing"), NOT_FOUND
    yield "http-1.0-no-host", get(b"/status.json", host_line=b"", version=b"HTTP/1.0"), OK
    if number % 10 == 0:
        yield "stream", get(b"/video.mp4"), OK
    # The bearer scheme in any case (RFC 7235); without a token the header is ignored.
    secret = (token or "no-token-here-0123").encode()
    yield "bearer-lower", get(b"/status.json", auth=b"Authorization: bearer %s\r\n" % secret), OK
    yield "bearer-upper", get(b"/status.json", auth=b"Authorization: BEARER %s\r\n" % secret), OK
    if token:
        yield "token-missing", get(b"/status.json", auth=b""), {"401"}
        yield "token-wrong", get(b"/status.json", auth=b"Authorization: Bearer wrong-token-0123456789\r\n"), {"401"}
        yield "token-prefix", get(b"/status.json", auth=b"Authorization: Bearer %s\r\n" % secret[:-1]), {"401"}
        yield "token-nul", get(b"/status.json?token=" + secret + b"%00junk", auth=b""), {"401"}
        yield "token-basic", get(b"/status.json", auth=b"Authorization: Basic %s\r\n" % secret), {"401"}
        yield "token-query", get(b"/status.json?token=" + secret, auth=b""), OK
    # Foreign hosts: refused without a token (DNS rebinding); with one, the token decides.
    foreign = {"200"} if token else {"421"}
    yield "host-foreign", get(b"/status.json", host_line=b"Host: x\r\n"), foreign
    yield "host-evil", get(b"/status.json", host_line=b"Host: evil.example:%d\r\n" % port), foreign
    yield "host-wrong-port", get(b"/status.json", host_line=b"Host: 127.0.0.1:1\r\n"), foreign
    yield "host-bare", get(b"/status.json", host_line=b"Host: 127.0.0.1\r\n"), foreign
    # Methods and bodies.
    yield "post", get(b"/", method=b"POST", extra=b"Content-Length: 5\r\n") + b"hello", {"405"}
    yield "put", get(b"/stream.mp4", method=b"PUT", extra=b"Content-Length: 0\r\n"), {"405"}
    yield "delete", get(b"/hls/live.m3u8", method=b"DELETE"), {"405"}
    yield "trace", get(b"/", method=b"TRACE"), {"405"}
    yield "options", get(b"*", method=b"OPTIONS"), {"405"}
    yield "get-with-body", get(b"/status.json", extra=b"Content-Length: 5\r\n") + b"hello", BAD
    yield "get-chunked", get(b"/", extra=b"Transfer-Encoding: chunked\r\n") + b"zz\r\n", BAD
    # Malformed HTTP, refused by libmicrohttpd before the routes.
    yield "version-9.9", get(b"/", version=b"HTTP/9.9"), {"505"}
    yield "no-host", b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", BAD
    yield "long-url", get(b"/" + LONG), REFUSED_BY_PARSER
    yield "big-header", get(b"/", extra=b"X-Big: " + LONG + b"\r\n"), REFUSED_BY_PARSER
    yield "many-headers", get(b"/", extra=b"".join(b"X-%d: y\r\n" % i for i in range(2000))), REFUSED_BY_PARSER
    yield "negative-length", get(b"/", extra=b"Content-Length: -5\r\n"), REFUSED_BY_PARSER
    yield "space-in-path", get(b"/a b"), REFUSED_BY_PARSER
    yield "header-without-colon", get(b"/", extra=b"no colon here\r\n"), REFUSED_BY_PARSER
    yield "raw-nul", get(b"/nothing\x00here"), REFUSED_BY_PARSER | NOT_FOUND
    yield "tls-hello", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256)), REFUSED_BY_PARSER
    yield "garbage", bytes((i * 37) % 256 for i in range(4096)), REFUSED_BY_PARSER
    if number < 3:
        # Headers never finished: the server waits for its idle limit, longer than the reader.
        yield "slow", b"GET / HTTP/1.1\r\n" + host, {"timeout"}


def send(port, payload, source):
    """The status (or "closed", "timeout") and the bytes of the answer, up to 64 KiB."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=1, source_address=(source, 0))
    except OSError:
        return "refused", b""
    answer = b""
    try:
        try:
            s.sendall(payload)
        except OSError:
            pass  # the server may answer, and close, before taking it all
        deadline = time.time() + 1
        while len(answer) < 65536 and time.time() < deadline:
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
    option = lambda name, default: int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default
    rounds, seconds = option("--rounds", 100), option("--seconds", 120)
    token = os.environ.get("HOSTILE_TOKEN") or None
    counts, names, slowest, unexpected = {}, {}, {}, []
    sent = leaks = injected = unexpected_count = 0
    deadline = time.time() + seconds
    for number in range(rounds):
        if time.time() > deadline:
            break
        for name, payload, expected in requests(port, token, number):
            started = time.time()
            status, answer = send(port, payload, SOURCES[sent % len(SOURCES)])
            slowest[name] = max(slowest.get(name, 0), round(time.time() - started, 3))
            sent += 1
            counts[status] = counts.get(status, 0) + 1
            names.setdefault(name, {})
            names[name][status] = names[name].get(status, 0) + 1
            leaks += b"root:x:0:0" in answer or b"/bin/bash" in answer
            head = answer.split(b"\r\n\r\n", 1)[0].lower()
            injected += b"\r\nx-injected" in head
            if status not in expected:
                unexpected_count += 1
                if len(unexpected) < 20:
                    unexpected.append({"name": name, "status": status, "answer": answer[:120].decode("latin-1")})
    print(json.dumps({"sent": sent, "answers": counts, "leaks": leaks, "injected": injected, "names": names,
                      "slowest": slowest, "unexpected": unexpected, "unexpectedCount": unexpected_count}))


if __name__ == "__main__":
    main()
