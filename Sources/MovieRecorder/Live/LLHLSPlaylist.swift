import MovieContainer

/// Writes a media playlist of the live stream as RFC 8216bis describes Low-Latency HLS: parts
/// (`EXT-X-PART`) of the newest segments with a preload hint for the next, blocking reloads
/// offered (`EXT-X-SERVER-CONTROL`), program date times from the capture clock, and a new
/// `EXT-X-MAP` after each discontinuity (a restart, or a turn that changed the matrix).
///
/// Without parts (``includesParts`` false) it is an ordinary live playlist of whole segments,
/// for a static web server.
struct LLHLSPlaylist {
    var snapshot: LiveStreamHub.PlaylistSnapshot
    var includesParts = true
    /// `EVENT` keeps every segment listed; otherwise the window slides.
    var isEvent = false
    /// The query each URI carries (an access token), such as `?token=…`, or empty.
    var query = ""

    /// Segments whose parts are listed: the newest ones, about three target durations' worth.
    private static let segmentsWithParts = 3

    var text: String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(includesParts ? 9 : 7)", "#EXT-X-TARGETDURATION:\(snapshot.targetDuration)"]
        if includesParts {
            lines.append("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=\(format(3 * snapshot.partTarget))")
            lines.append("#EXT-X-PART-INF:PART-TARGET=\(format(snapshot.partTarget))")
        }
        if isEvent { lines.append("#EXT-X-PLAYLIST-TYPE:EVENT") }
        let listed = includesParts ? snapshot.segments : snapshot.segments.filter(\.isComplete)
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(listed.first?.sequenceNumber ?? 0)")
        lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(snapshot.discontinuitySequence)")
        lines.append("#EXT-X-INDEPENDENT-SEGMENTS")
        let withParts = Set(listed.suffix(Self.segmentsWithParts).map(\.sequenceNumber))
        for (i, segment) in listed.enumerated() {
            // A segment just begun, with no part complete yet, shows only in the preload hint.
            if !segment.isComplete && !segment.parts.contains(where: \.isComplete) { continue }
            if segment.isDiscontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            if i == 0 || segment.initialization != listed[i - 1].initialization {
                lines.append("#EXT-X-MAP:URI=\"init-\(segment.initialization).mp4\(query)\"")
            }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:" + date(segment.captureTime))
            if includesParts && withParts.contains(segment.sequenceNumber) {
                for (p, part) in segment.parts.enumerated() where part.isComplete {
                    lines.append("#EXT-X-PART:DURATION=\(format(part.duration)),URI=\"part-\(segment.sequenceNumber).\(p).m4s\(query)\""
                                 + (part.isIndependent ? ",INDEPENDENT=YES" : ""))
                }
            }
            if segment.isComplete {
                lines.append("#EXTINF:\(format(segment.duration)),")
                lines.append("seg-\(segment.sequenceNumber).m4s\(query)")
            }
        }
        if includesParts, let hint = nextPart(listed) {
            lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part-\(hint.0).\(hint.1).m4s\(query)\"")
        }
        if !snapshot.isLive { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The part after the newest complete one: in the segment in progress, or the next segment's
    /// first.
    private func nextPart(_ listed: [LiveStreamHub.PlaylistSnapshot.Segment]) -> (Int, Int)? {
        guard snapshot.isLive, let last = listed.last else { return nil }
        if last.isComplete { return (last.sequenceNumber + 1, 0) }
        return (last.sequenceNumber, last.parts.filter(\.isComplete).count)
    }

    /// Seconds to the millisecond, as `EXTINF` and `PART-TARGET` take them.
    func format(_ seconds: Double) -> String {
        let thousandths = Int((seconds * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// A capture time as `EXT-X-PROGRAM-DATE-TIME` takes it: ISO 8601, to the millisecond.
    func date(_ unixNanoseconds: UInt64) -> String {
        let time = QuickTimeTimestamp(unixSeconds: Int64(unixNanoseconds / 1_000_000_000))
        return MetadataItem.iso8601(time, milliseconds: Int(unixNanoseconds / 1_000_000 % 1000))
    }
}
