import MovieContainer
import MoviePlatform

extension LiveViewRoutes {
    /// The media playlist; with `_HLS_msn` (and `_HLS_part`) it waits, up to three target
    /// durations, until the playlist holds that part.
    func playlist(_ request: HTTPRequest) -> HTTPResponse {
        let hub = output.hub
        let msn = request.query["_HLS_msn"].map { Int($0) }
        let part = request.query["_HLS_part"].map { Int($0) }
        if case .some(.none) = msn { return .text(400, "_HLS_msn must be a whole number.") }
        if case .some(.none) = part { return .text(400, "_HLS_part must be a whole number.") }
        if part != nil && msn == nil { return .text(400, "_HLS_part needs _HLS_msn.") }
        if let requested = msn ?? nil, let last = hub.lastSequenceNumber, requested > last + 2 {
            return .text(400, "segment \(requested) is more than two segments ahead of \(last).")
        }
        let deadline = SystemClock.monotonicNanoseconds() + UInt64(3 * hub.targetDuration) * 1_000_000_000
        guard let snapshot = hub.playlist(waitingFor: msn ?? nil, part: part ?? nil, until: deadline, cancelled: { [self] in isClosedNow }) else {
            return .text(503, "Nothing has been streamed yet; try again in a moment.", headers: [("Retry-After", "1")])
        }
        let text = LLHLSPlaylist(snapshot: snapshot, partTarget: hub.partTarget, targetDuration: hub.targetDuration,
                                 query: tokenQuery(request)).text
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/vnd.apple.mpegurl"), ("Cache-Control", "no-cache"),
                                                   ("Access-Control-Allow-Origin", "*")],
                            body: .bytes(Array(text.utf8)))
    }

    /// `init-N.mp4`, `seg-N.m4s` and `part-N.P.m4s`; a part not complete yet is waited for (a
    /// preload hint asks for it early).
    func hlsResource(_ name: String) -> HTTPResponse {
        let hub = output.hub
        let found: [UInt8]?
        if let n = Self.numbers(in: name, prefix: "init-", suffix: ".mp4"), n.count == 1 {
            found = hub.initialization(n[0])
        } else if let n = Self.numbers(in: name, prefix: "seg-", suffix: ".m4s"), n.count == 1 {
            found = hub.segment(n[0])
        } else if let n = Self.numbers(in: name, prefix: "part-", suffix: ".m4s"), n.count == 2 {
            let deadline = SystemClock.monotonicNanoseconds() + UInt64(3 * hub.targetDuration) * 1_000_000_000
            found = hub.part(n[0], n[1], until: deadline, cancelled: { [self] in isClosedNow })
        } else {
            return .text(404, "/hls/\(name.prefix(200)) is not a resource of this stream.")
        }
        guard let found else { return .text(404, "/hls/\(name) is no longer (or not yet) in the stream's window.") }
        return HTTPResponse(status: 200, headers: [("Content-Type", "video/mp4"), ("Cache-Control", "max-age=60"),
                                                   ("Access-Control-Allow-Origin", "*")],
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

    /// The query every URI in a playlist carries: the token the request came with.
    private func tokenQuery(_ request: HTTPRequest) -> String {
        request.query["token"].map { "?token=\($0)" } ?? ""
    }
}
