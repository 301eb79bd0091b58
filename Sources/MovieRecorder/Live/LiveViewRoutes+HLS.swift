import MovieContainer
import MoviePlatform

extension LiveViewRoutes {
    /// The media playlist; with `_HLS_msn` (and `_HLS_part`) it waits, up to three target
    /// durations, until the playlist holds that part.
    func playlist(_ request: HTTPRequest) -> HTTPResponse {
        let hub = output.hub
        // Whole numbers below a billion: nothing a client sends can overflow the arithmetic.
        let number = { (text: String) in text.count <= 9 && text.allSatisfy(\.isASCII) ? Int(text).flatMap { $0 >= 0 ? $0 : nil } : nil }
        let msn = request.query["_HLS_msn"].map(number)
        let part = request.query["_HLS_part"].map(number)
        if case .some(.none) = msn { return .text(400, "_HLS_msn must be a whole number from 0 to 999999999.") }
        if case .some(.none) = part { return .text(400, "_HLS_part must be a whole number from 0 to 999999999.") }
        if part != nil && msn == nil { return .text(400, "_HLS_part needs _HLS_msn.") }
        if let requested = msn ?? nil, requested > (hub.lastSequenceNumber ?? 0) + 2 {
            return .text(400, "segment \(requested) is more than two segments ahead of the playlist.")
        }
        let deadline = SystemClock.monotonicNanoseconds() + UInt64(3 * hub.targetDuration) * 1_000_000_000
        guard let snapshot = hub.playlist(waitingFor: msn ?? nil, part: part ?? nil, until: deadline, group: readers) else {
            return .text(503, "Nothing has been streamed yet; try again in a moment.", headers: [("Retry-After", "1")])
        }
        let text = LLHLSPlaylist(snapshot: snapshot, query: tokenQuery).text
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/vnd.apple.mpegurl"), ("Cache-Control", "no-cache")]
                                + crossOrigin, body: .bytes(Array(text.utf8)))
    }

    /// `init-N.mp4`, `seg-N.m4s` and `part-N.P.m4s`; a part not complete yet is waited for (a
    /// preload hint asks for it early), unless its segment is more than two ahead of the newest,
    /// as for `_HLS_msn`: it would not come within the wait. (Segments are never waited for.)
    func hlsResource(_ name: String) -> HTTPResponse {
        let hub = output.hub
        let found: [UInt8]?
        if let n = Self.numbers(in: name, prefix: "init-", suffix: ".mp4"), n.count == 1 {
            found = hub.initialization(n[0])
        } else if let n = Self.numbers(in: name, prefix: "seg-", suffix: ".m4s"), n.count == 1 {
            found = hub.segment(n[0])
        } else if let n = Self.numbers(in: name, prefix: "part-", suffix: ".m4s"), n.count == 2 {
            guard n[0] <= (hub.lastSequenceNumber ?? 0) + 2 else {
                return .text(404, "/hls/\(name) is more than two segments ahead of the stream.")
            }
            let deadline = SystemClock.monotonicNanoseconds() + UInt64(3 * hub.targetDuration) * 1_000_000_000
            found = hub.part(n[0], n[1], until: deadline, group: readers)
        } else {
            return .text(404, "/hls/\(name.prefix(200)) is not a resource of this stream.")
        }
        guard let found else { return .text(404, "/hls/\(name) is no longer (or not yet) in the stream's window.") }
        return HTTPResponse(status: 200, headers: [("Content-Type", "video/mp4"), ("Cache-Control", "max-age=60")] + crossOrigin,
                            body: .bytes(found))
    }

    /// The numbers between `prefix` and `suffix`, separated by dots: `part-12.3.m4s` gives
    /// [12, 3]; nil when the name is anything else.
    static func numbers(in name: String, prefix: String, suffix: String) -> [Int]? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return nil }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        let parts = middle.split(separator: ".", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { $0.count <= 9 && $0.allSatisfy(\.isASCII) ? Int($0) : nil }
        return numbers.count == parts.count && numbers.allSatisfy { $0 >= 0 } ? numbers : nil
    }
}
