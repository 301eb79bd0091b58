#!/usr/bin/env python3
"""Plays an RTSP URL with aiortsp (a third RTSP client, besides ffmpeg and GStreamer) and checks the H.264.

    aiortsp-client.py URL [--seconds N] [--user-file F]

Needs `python3 -m pip install aiortsp` (tested with aiortsp 1.4.0, which brings dpkt). URL is
rtsp://HOST:PORT/PATH (user:password@ in it are used too; --user-file F, one line
user:password, is better: a command line is seen by every user's `ps`). The script connects,
sets up the video stream (and the audio stream when the SDP has one) over TCP interleaved,
plays, reads RTP for N seconds (default 5), tears down, and prints one JSON object:

  aiortsp         the library's version
  streams         per stream ("video", "audio"): packets, payload_types, pictures (distinct RTP
                  timestamps), span_seconds (last minus first timestamp over the clock rate),
                  rtcp_sender_reports; for video also nal_types (counts by NAL unit type, with
                  FU-A fragments counted once by the type in their FU header and STAP-A
                  aggregates by the types inside), idr_pictures, and idr_with_sps_pps (access
                  units, i.e. RTP timestamps, where an SPS (7) and a PPS (8) come before an IDR
                  slice (5))
  ok, problems    the verdict and why not

Exit status 0 when video packets arrived, at least one IDR access unit carried SPS and PPS
before its IDR slice, and the pictures span at least 2 seconds; 1 otherwise (the reasons on
stderr); 2 for a usage error.

What aiortsp 1.4.0 cannot do, and how this script works around it (standard library only):
  - RTSPMediaSession sets up one media only (video by default). The audio stream is set up by
    hand on the same RTSPConnection (its send_request, so Digest and the session still apply),
    on two more interleaved channels registered with register_binary_handler.
  - The transport is chosen from the URL's scheme (rtsp:// means UDP, rtspt:// TCP): the
    script builds aiortsp's TCPTransport itself, so any rtsp:// URL is read interleaved.
  - Its RTP parsing (dpkt's RTP) ignores header extensions and padding, and it has no H.264
    depacketizer: RTP headers and NAL units are parsed here with struct.
  - Its SDP parser reads `a=rtpmap:97 MPEG4-GENERIC/48000/2` as clock rate 2 (it splits at the
    last slash): the clock rate is taken from the rtpmap's second field here.
  - An RTCP packet its parser rejects raises inside the connection's data_received, which
    closes the connection: RTCP is counted here from the raw bytes and handed to aiortsp (for
    its receiver reports) inside a try.
"""
import argparse
import asyncio
import json
import logging
import struct
import sys
import time
from urllib.parse import urlparse

try:
    from aiortsp.__version__ import __version__ as AIORTSP_VERSION
    from aiortsp.rtsp.connection import RTSPConnection
    from aiortsp.rtsp.session import RTSPMediaSession
    from aiortsp.transport.tcp import TCPTransport
except ImportError as error:  # pragma: no cover
    print("aiortsp-client.py: aiortsp is missing (python3 -m pip install aiortsp): %s" % error, file=sys.stderr)
    sys.exit(2)


class StreamStats:
    """What arrived on one stream."""

    def __init__(self, name, clock_rate, video):
        self.name, self.clock_rate, self.video = name, clock_rate, video
        self.packets = 0
        self.payload_types = set()
        self.ssrcs = set()
        self.first_ts = None
        self.offsets = set()  # timestamps relative to the first, unwrapped
        self.sender_reports = 0
        self.sender_packet_count = None  # the packets the last sender report says were sent
        self.rtcp_packets = 0
        self.malformed = 0
        self.nal_counts = {}
        self.units = {}  # timestamp -> NAL types in order of arrival (video)

    def rtp(self, data):
        """One RTP packet: header by hand (CSRCs, extension, padding), then the payload."""
        if len(data) < 12 or data[0] >> 6 != 2:
            self.malformed += 1
            return
        first, second, _seq, timestamp, ssrc = struct.unpack("!BBHII", data[:12])
        offset = 12 + 4 * (first & 0x0F)
        if first & 0x10:  # header extension
            if len(data) < offset + 4:
                self.malformed += 1
                return
            offset += 4 + 4 * struct.unpack("!H", data[offset + 2:offset + 4])[0]
        end = len(data) - (data[-1] if first & 0x20 else 0)
        if offset > end:
            self.malformed += 1
            return
        self.packets += 1
        self.payload_types.add(second & 0x7F)
        self.ssrcs.add(ssrc)
        if self.first_ts is None:
            self.first_ts = timestamp
        relative = (timestamp - self.first_ts) & 0xFFFFFFFF
        self.offsets.add(relative - (1 << 32) if relative >= 1 << 31 else relative)
        if self.video:
            self.h264(timestamp, data[offset:end])

    def h264(self, timestamp, payload):
        """The NAL unit types in one RTP payload (RFC 6184): single, STAP-A (24), FU-A (28)."""
        if not payload:
            return
        kind = payload[0] & 0x1F
        types = []
        if 1 <= kind <= 23:
            types.append(kind)
        elif kind == 24:  # STAP-A: 16-bit sizes, each followed by a NAL unit
            position = 1
            while position + 2 <= len(payload):
                size = struct.unpack("!H", payload[position:position + 2])[0]
                position += 2
                if size == 0 or position + size > len(payload):
                    break
                types.append(payload[position] & 0x1F)
                position += size
        elif kind == 28 and len(payload) >= 2:  # FU-A: the start fragment names the type
            if payload[1] & 0x80:
                types.append(payload[1] & 0x1F)
        else:
            types.append(kind)  # STAP-B, MTAP, FU-B: counted as themselves
        unit = self.units.setdefault(timestamp, [])
        for nal in types:
            self.nal_counts[nal] = self.nal_counts.get(nal, 0) + 1
            unit.append(nal)

    def rtcp(self, data):
        """A compound RTCP packet: sender reports (PT 200) counted."""
        self.rtcp_packets += 1
        position = 0
        while position + 4 <= len(data):
            packet_type = data[position + 1]
            length = (struct.unpack("!H", data[position + 2:position + 4])[0] + 1) * 4
            if packet_type == 200:
                self.sender_reports += 1
                if position + 28 <= len(data):
                    self.sender_packet_count = struct.unpack("!I", data[position + 20:position + 24])[0]
            position += length

    def report(self):
        span = (max(self.offsets) - min(self.offsets)) / self.clock_rate if self.offsets else 0.0
        result = {"packets": self.packets, "payload_types": sorted(self.payload_types), "ssrcs": len(self.ssrcs),
                  "pictures" if self.video else "timestamps": len(self.offsets), "span_seconds": round(span, 3),
                  "rtcp_packets": self.rtcp_packets, "rtcp_sender_reports": self.sender_reports,
                  "sender_report_packet_count": self.sender_packet_count}
        if self.malformed:
            result["malformed"] = self.malformed
        if self.video:
            idr = [types for types in self.units.values() if 5 in types]
            result["nal_types"] = {str(k): v for k, v in sorted(self.nal_counts.items())}
            result["idr_pictures"] = len(idr)
            result["idr_with_sps_pps"] = sum(1 for types in idr if sps_pps_before_idr(types))
        return result


def sps_pps_before_idr(types):
    """Whether an SPS and a PPS come before the first IDR slice of an access unit."""
    first_idr = types.index(5)
    return 7 in types[:first_idr] and 8 in types[:first_idr]


class CountingTCPTransport(TCPTransport):
    """aiortsp's interleaved transport, with the video's RTP and RTCP also counted here."""

    def __init__(self, stats, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.counted = stats

    def handle_rtp_data(self, data):
        self.counted.rtp(data)
        try:
            super().handle_rtp_data(data)  # aiortsp's statistics, for its receiver reports
        except Exception:  # its dpkt parsing must not end the connection
            pass

    def handle_rtcp_data(self, data):
        self.counted.rtcp(data)
        try:
            super().handle_rtcp_data(data)
        except Exception:  # aiortsp's RTCP parser rejected it
            logging.getLogger("aiortsp-client").debug("aiortsp could not parse an RTCP packet")


def media_clock_rate(sdp, kind, default):
    """The clock rate of the SDP's rtpmap for `kind`. aiortsp splits `encoding/rate/channels` at
    its last slash, so for MPEG4-GENERIC/48000/2 its clockRate is 2: the rtpmap is rebuilt and
    split here."""
    media = sdp.get_media(kind) if sdp else None
    rtpmap = (media or {}).get("attributes", {}).get("rtpmap") or {}
    parts = ("%s/%s" % (rtpmap.get("encoding", ""), rtpmap.get("clockRate", ""))).split("/")
    try:
        return int(parts[1])
    except (IndexError, ValueError):
        return default


async def play(url, user, password, seconds, timeout):
    parsed = urlparse(url)
    if parsed.scheme not in ("rtsp", "rtspt"):
        raise ValueError("the URL must be rtsp://HOST:PORT/PATH")
    user = user or parsed.username
    password = password or parsed.password
    logger = logging.getLogger("aiortsp-client")
    video = StreamStats("video", 90000, True)
    audio = None
    notes = []
    async with RTSPConnection(parsed.hostname, parsed.port or 554, user, password, logger=logger, timeout=timeout) as connection:
        unrouted = {}
        routed = connection.on_binary

        def on_binary(binary):  # interleaved data on a channel nobody set up is counted
            if binary.id not in connection.binary_handlers:
                unrouted[binary.id] = unrouted.get(binary.id, 0) + 1
            routed(binary)

        connection.on_binary = on_binary
        async with CountingTCPTransport(video, connection, logger=logger, timeout=timeout) as transport:
            session = RTSPMediaSession(connection, url, transport=transport, media_type="video", logger=logger)
            await session.setup()  # OPTIONS, DESCRIBE, SETUP of the video
            video.clock_rate = media_clock_rate(session.sdp, "video", 90000)
            if session.sdp and session.sdp.get_media("audio") is not None:
                # aiortsp sets up one media: the audio by hand on two more channels.
                audio = StreamStats("audio", media_clock_rate(session.sdp, "audio", 48000), False)
                rtp_channel = connection.register_binary_handler(lambda binary: audio.rtp(binary.data))
                rtcp_channel = connection.register_binary_handler(lambda binary: audio.rtcp(binary.data))
                audio_url = session.sdp.setup_url(session.media_url, media_type="audio")
                await connection.send_request("SETUP", audio_url, headers={
                    "Transport": "RTP/AVP/TCP;unicast;interleaved=%d-%d" % (rtp_channel, rtcp_channel),
                    "Session": session.session_id})
            await session.play()
            started = time.monotonic()
            while time.monotonic() - started < seconds and connection.running:
                await asyncio.sleep(0.2)
            if unrouted:
                notes.append("interleaved data on channels not set up: %s" % unrouted)
            if not connection.running:
                notes.append("the server closed the connection after %.1f s" % (time.monotonic() - started))
            try:
                await asyncio.wait_for(session.teardown(), 3)
            except Exception as error:  # the stream was read; a failed TEARDOWN is only noted
                notes.append("TEARDOWN: %s" % error)
    return video, audio, notes


def read_user_file(path):
    with open(path, encoding="utf-8") as handle:
        user, sep, password = handle.readline().strip().partition(":")
    if not sep or not user:
        raise ValueError("%s: expected one line user:password" % path)
    return user, password


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long to read RTP (5)")
    parser.add_argument("--user-file", help="a file with one line user:password")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds each RTSP request may take (10)")
    args = parser.parse_args()
    user = password = None
    if args.user_file:
        try:
            user, password = read_user_file(args.user_file)
        except (OSError, ValueError) as error:
            parser.error(str(error))
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    problems, streams, notes = [], {}, []
    try:
        video, audio, notes = asyncio.run(asyncio.wait_for(play(args.url, user, password, args.seconds, args.timeout),
                                                           args.seconds + 4 * args.timeout + 10))
        streams["video"] = video.report()
        if audio is not None:
            streams["audio"] = audio.report()
    except asyncio.TimeoutError:
        problems.append("no end within %.0f s" % (args.seconds + 4 * args.timeout + 10))
    except Exception as error:
        response = getattr(error, "response", None)
        if response is not None and getattr(response, "status", None) is not None:
            request = error.args[0] if error.args and isinstance(error.args[0], str) else "a request"
            problems.append("%s: %s: answered %s %s" % (type(error).__name__, request, response.status, getattr(response, "msg", "")))
        else:
            problems.append("%s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else ""))

    report = streams.get("video")
    if report is not None:
        if report["packets"] == 0:
            problems.append("no video RTP packets arrived")
        elif report["idr_with_sps_pps"] == 0:
            problems.append("no IDR access unit with SPS and PPS before the IDR slice (NAL types seen: %s)" % report["nal_types"])
        if report["packets"] and report["span_seconds"] < 2.0:
            problems.append("the pictures span only %.2f s (%d pictures); at least 2 s expected"
                            % (report["span_seconds"], report["pictures"]))
    elif not problems:
        problems.append("no video stream was set up")
    print(json.dumps({"url": args.url.replace("%s@" % urlparse(args.url).netloc.split("@")[0], "")
                      if "@" in urlparse(args.url).netloc else args.url,
                      "aiortsp": AIORTSP_VERSION, "seconds": args.seconds, "streams": streams, "notes": notes,
                      "ok": not problems, "problems": problems}, indent=2))
    for problem in problems:
        print("aiortsp-client.py: " + problem, file=sys.stderr)
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
