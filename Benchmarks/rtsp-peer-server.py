#!/usr/bin/python3
"""The RTSP server a user would otherwise write with gst-rtsp-server, as a latency peer.

    /usr/bin/python3 rtsp-peer-server.py PORT [WxH] [--delay-ms MS]

Serves a live 30 fps x264 test pattern (default 640x360) on rtsp://127.0.0.1:PORT/sub (and /main,
the same), one shared media. Its RTCP sender reports carry, for an RTP timestamp, the wall-clock
time the frame was *captured* (NTP, 1900 epoch), so a client (rtsp-latency.py) can measure
capture -> display latency. --delay-ms holds every frame that long before the payloader, only to
check that the SRs map to capture time: the measured latency must then rise by as much.
Prints rtsp://127.0.0.1:PORT/sub once listening; SIGTERM or SIGINT stops it.
"""
import argparse, signal, sys

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("port", type=int)
parser.add_argument("size", nargs="?", default="640x360", help="WxH (default 640x360)")
parser.add_argument("--delay-ms", type=int, default=0, help="hold frames before the payloader")
args = parser.parse_args()
width, height = (int(v) for v in args.size.lower().split("x"))

Gst.init(None)

delay = (f"queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 "
         f"min-threshold-time={args.delay_ms * 1000000} ! ") if args.delay_ms else ""
launch = (f"( videotestsrc is-live=true pattern=ball ! video/x-raw,width={width},height={height},framerate=30/1 "
          f"! x264enc tune=zerolatency speed-preset=ultrafast ! {delay}rtph264pay name=pay0 pt=96 config-interval=-1 )")


def configure_rtpbin(element):
    # SRs pair the NTP wall clock (1900 epoch) "now" with the RTP timestamp extrapolated from the
    # last packet's *buffer* running time, i.e. its capture time. With the default
    # rtcp-sync-send-time=true they use the time the packet was sent instead, which hides the
    # sender's own latency (about 53 ms here: the RTP sink syncs to the pipeline latency).
    # ntp-time-source=clock-time or unix would give unix-epoch times (1970), not NTP.
    kind = element.get_factory()
    if kind is not None and kind.get_name() == "rtpbin":
        Gst.util_set_object_arg(element, "ntp-time-source", "ntp")
        element.set_property("rtcp-sync-send-time", False)


def on_media_configure(_factory, media):
    # The media's rtpbin is created only when the media is prepared, after this signal, so catch
    # it as it is added to the pipeline (the parent of the media's bin).
    pipeline = media.get_element().get_parent()
    pipeline.connect("deep-element-added", lambda _bin, _sub, element: configure_rtpbin(element))


factory = GstRtspServer.RTSPMediaFactory()
factory.set_launch(launch)
factory.set_shared(True)
# A realtime clock for the media, so the pipeline clock, whose running time dates the frames,
# runs with the wall clock the SRs' NTP time comes from (it measured the same without it here).
factory.set_clock(Gst.SystemClock(clock_type=Gst.ClockType.REALTIME))
factory.connect("media-configure", on_media_configure)

server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(str(args.port))
for path in ("/sub", "/main"):
    server.get_mount_points().add_factory(path, factory)
if server.attach(None) == 0:
    sys.exit(f"rtsp-peer-server: cannot listen on 127.0.0.1:{args.port}")

loop = GLib.MainLoop()
for sig in (signal.SIGTERM, signal.SIGINT):
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, loop.quit)
print(f"rtsp://127.0.0.1:{args.port}/sub", flush=True)
loop.run()
