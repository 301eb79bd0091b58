#!/usr/bin/python3
"""Capture -> decoded-frame latency of an RTSP stream, from its RTCP sender reports.

    /usr/bin/python3 rtsp-latency.py URL [--seconds N] [--transport tcp|udp] [--json] [--user-file F]

rtspsrc (latency=0, add-reference-timestamp-meta=true) ! decodebin ! appsink sync=false. rtspsrc
tags each buffer with a GstReferenceTimestampMeta (caps timestamp/x-ntp) holding the NTP time
the sender's SRs give for its RTP timestamp; with a sender that maps RTP time to capture time
(rtsp-peer-server.py), the wall clock when a decoded frame reaches the appsink minus that time
is the frame's capture -> decoded latency. Frames before the first SR carry no meta and are
skipped; the first 2 s with a meta are warm-up. Prints p50, p95 and max in ms and the frame count
(--json: one JSON object). Exits non-zero with a message when no meta arrives within 10 s or no
frame is decoded. --user-file holds one line user:password for servers with Digest auth.
"""
import argparse, json, sys, time

import gi
gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

NTP_UNIX_OFFSET_NS = 2208988800 * Gst.SECOND  # NTP counts from 1900, unix time from 1970
WARM_UP_S, META_TIMEOUT_S = 2.0, 10.0

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("url")
parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds after warm-up (default 20)")
parser.add_argument("--transport", choices=("tcp", "udp"), default="tcp")
parser.add_argument("--json", action="store_true", help="print one JSON object")
parser.add_argument("--user-file", help="file with one line user:password (Digest auth)")
args = parser.parse_args()

Gst.init(None)
pipeline = Gst.parse_launch(
    f"rtspsrc name=src latency=0 protocols={args.transport} add-reference-timestamp-meta=true max-rtcp-rtp-time-diff=-1 "
    "! decodebin ! appsink name=sink sync=false emit-signals=true max-buffers=4 drop=true")
src = pipeline.get_by_name("src")
src.set_property("location", args.url)  # set as a property, so no quoting issue in the URL
# Only the video stream: an audio stream would be left unlinked by `decodebin ! appsink`.
src.connect("select-stream", lambda _src, _num, caps: caps.get_structure(0).get_string("media") == "video")
if args.user_file:
    with open(args.user_file) as f:
        user, _, password = f.readline().rstrip("\r\n").partition(":")
    src.set_property("user-id", user)
    src.set_property("user-pw", password)

ntp_caps = Gst.Caps.from_string("timestamp/x-ntp")
started = time.monotonic()
state = {"frames": 0, "first_meta": None, "latencies": [], "error": None}
loop = GLib.MainLoop()


def stop(error=None):
    if error and not state["error"]:
        state["error"] = error
    GLib.idle_add(loop.quit)


def on_sample(sink):
    # Runs in the streaming thread, as soon as a frame is decoded.
    now_ntp = time.time_ns() + NTP_UNIX_OFFSET_NS
    buffer = sink.emit("pull-sample").get_buffer()
    state["frames"] += 1
    meta = buffer.get_reference_timestamp_meta(ntp_caps)
    if meta is None:
        return Gst.FlowReturn.OK
    elapsed = time.monotonic()
    if state["first_meta"] is None:
        state["first_meta"] = elapsed
    if elapsed - state["first_meta"] >= WARM_UP_S:
        state["latencies"].append((now_ntp - meta.timestamp) / 1e6)
        if elapsed - state["first_meta"] >= WARM_UP_S + args.seconds:
            stop()
    return Gst.FlowReturn.OK


def on_message(_bus, message):
    if message.type == Gst.MessageType.ERROR:
        err, debug = message.parse_error()
        stop(f"{message.src.get_name()}: {err.message}")
    elif message.type == Gst.MessageType.EOS:
        stop("end of stream before the measurement finished")


def watchdog():
    # Bounds the run: a reference meta within 10 s, then warm-up + N s (plus 10 s of slack).
    elapsed = time.monotonic() - started
    if state["first_meta"] is None and elapsed > META_TIMEOUT_S:
        stop(f"no timestamp/x-ntp reference meta within {META_TIMEOUT_S:.0f} s "
             f"({state['frames']} frames decoded; does the server send RTCP sender reports?)")
    elif elapsed > META_TIMEOUT_S + WARM_UP_S + args.seconds + 10:
        stop("timed out")
    return GLib.SOURCE_CONTINUE


pipeline.get_by_name("sink").connect("new-sample", on_sample)
bus = pipeline.get_bus()
bus.add_signal_watch()
bus.connect("message", on_message)
GLib.timeout_add(250, watchdog)
pipeline.set_state(Gst.State.PLAYING)
loop.run()
pipeline.set_state(Gst.State.NULL)

values = sorted(state["latencies"])
if state["error"] or not values:
    sys.exit(f"rtsp-latency: {state['error'] or 'no frame measured'}")


def percentile(p):
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


result = {"p50_ms": round(percentile(50), 2), "p95_ms": round(percentile(95), 2),
          "max_ms": round(values[-1], 2), "frames": len(values)}
if args.json:
    print(json.dumps(result))
else:
    print(f"capture -> decoded latency over {len(values)} frames: "
          f"p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, max {result['max_ms']} ms")
