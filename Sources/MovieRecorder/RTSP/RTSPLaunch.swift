import MoviePlatform

/// The GStreamer pipeline a path serves, in gst-launch syntax: an `appsrc` per stream, fed the
/// access units we encoded, and the payloader RFC 6184, 7798 or 3640 asks for.
///
/// The payloaders put the parameter sets in front of every IDR (`config-interval=-1`), so a
/// client that joins late decodes at once, and write the SDP's `sprop-parameter-sets` and
/// `profile-level-id`, `sprop-vps/sps/pps`, or AAC's `config`.
enum RTSPLaunch {
    /// The description for a path with `video` and, when given, `audio`: video is `src0` and
    /// `pay0`, audio `src1` and `pay1`.
    static func description(video: EncodedVideoFormat, audio: EncodedAudioFormat?) -> String {
        var parts = [source(0, caps: videoCaps(video)) + " ! " + payloader(video) + " name=pay0 pt=96 config-interval=-1"]
        if let audio {
            parts.append(source(1, caps: audioCaps(audio)) + " ! rtpmp4gpay name=pay1 pt=97")
        }
        return "( " + parts.joined(separator: " ") + " )"
    }

    /// A live source in time format that never blocks the pusher: at most 8 MB wait in it, the
    /// oldest dropped past that (only when the server's own thread is stalled).
    private static func source(_ index: Int, caps: String) -> String {
        "appsrc name=src\(index) is-live=true format=time do-timestamp=false min-latency=0 block=false "
            + "max-bytes=8000000 leaky-type=downstream caps=\"\(caps)\""
    }

    private static func payloader(_ video: EncodedVideoFormat) -> String {
        video.codec == .h264 ? "rtph264pay aggregate-mode=zero-latency" : "rtph265pay aggregate-mode=zero-latency"
    }

    static func videoCaps(_ video: EncodedVideoFormat) -> String {
        let (media, format) = video.codec == .h264 ? ("video/x-h264", "avc") : ("video/x-h265", "hvc1")
        return "\(media),stream-format=\(format),alignment=au,width=\(video.width),height=\(video.height),"
            + "codec_data=(buffer)\(Digests.hex(video.configuration))"
    }

    static func audioCaps(_ audio: EncodedAudioFormat) -> String {
        "audio/mpeg,mpegversion=4,stream-format=raw,rate=\(audio.sampleRate),channels=\(audio.channelCount),"
            + "codec_data=(buffer)\(Digests.hex(audio.audioSpecificConfig))"
    }
}
