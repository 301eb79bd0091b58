import MovieContainer
import MoviePlatform

/// Writes a ``LiveStreamOutput``'s stream into a directory as HLS, for any static web server
/// (nginx, a CDN) to serve to many viewers: `live.m3u8`, `init-N.mp4` and one `seg-N.m4s` per
/// segment of about a second, each put in place whole (written beside, then renamed), so a
/// server never sends a partial file.
///
/// The playlist is a sliding window of ``windowSegments`` segments, older files deleted a few
/// segments later (a player may still be reading them); with `windowSegments` nil it is an
/// `EVENT` playlist that keeps every segment. Parts are not written: blocking playlist reloads,
/// which Low-Latency HLS needs, take a server that answers them (``LiveViewServer``). When the
/// session stops the playlist ends with `EXT-X-ENDLIST`, and goes on when it runs again.
///
/// It runs on a thread of its own and never holds up the stream: when the disk is slower than
/// the stream it skips to the newest segment.
public final class HLSDirectoryWriter: Sendable {
    /// The directory written to.
    public let directory: String
    /// How many segments the playlist lists; nil for an `EVENT` playlist that lists them all.
    public let windowSegments: Int?
    private let hub: LiveStreamHub
    private let readers = LiveStreamHub.ReaderGroup()
    private let thread: LockedValue<DedicatedThread?> = LockedValue(nil)
    private let failure = LockedValue<LiveViewError?>(nil)

    /// Starts writing `output`'s stream into `directory`, which must exist.
    /// - Throws: ``LiveViewError`` with ``LiveViewError/Code/invalidSettings`` when the
    ///   directory does not exist or `windowSegments` is below 3.
    public init(output: LiveStreamOutput, directory: String, windowSegments: Int? = 6) throws(LiveViewError) {
        if let windowSegments, windowSegments < 3 {
            throw LiveViewError(.invalidSettings, "HLSDirectoryWriter: a window of \(windowSegments) segments is too short; give 3 or more")
        }
        guard RandomAccessFile.exists(directory) else {
            throw LiveViewError(.invalidSettings, "HLSDirectoryWriter: the directory \(directory) does not exist; create it first")
        }
        self.directory = directory
        self.windowSegments = windowSegments
        hub = output.hub
        let started = DedicatedThread(name: "movrec-hls") { [self] in run() }
        thread.withLock { $0 = started }
    }

    /// Why writing stopped, if it failed (a full disk, a directory removed); nil while it goes on.
    public var error: LiveViewError? { failure.withLock { $0 } }

    /// Stops writing; the files stay, the playlist ended with `EXT-X-ENDLIST` so players read
    /// it as finished. Waits, on a thread of its own, for the last playlist to be written. The
    /// writer runs until this is called (or the output goes away).
    public func stop() async {
        let (hub, readers, thread) = (self.hub, self.readers, self.thread)
        _ = try? await runOnDedicatedThread(name: "movrec-hls-stop") {
            hub.cancel(readers)
            thread.withLock { $0 }?.join()
        }
    }

    private func run() {
        var written = DirectoryState()
        while true {
            let deadline = SystemClock.monotonicNanoseconds() + 1_000_000_000
            let snapshot = hub.playlist(waitingFor: written.next, part: nil, until: deadline, group: readers)
            if hub.isStopped(readers) { break }
            do {
                if let snapshot { try write(snapshot, &written) }
            } catch {
                fail(error)
                return
            }
            // Once the stream has ended the playlist is not waited for: wait for the next stream.
            if snapshot?.isLive != true { _ = hub.waitForStream(until: deadline, group: readers) }
        }
        guard !written.listed.isEmpty else { return }
        do {
            try writePlaylist(written, codecs: "", isLive: false, partTarget: 0, targetDuration: written.targetDuration)
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: any Error) {
        failure.withLock { $0 = LiveViewError(.fileError, "HLSDirectoryWriter: writing \(directory): \(error); free space or fix the directory") }
    }

    /// What the directory holds so far.
    private struct DirectoryState {
        var next = 0
        var initializations: Set<Int> = []
        var segments: [Int] = []
        /// The segments the playlist lists.
        var listed: [LiveStreamHub.PlaylistSnapshot.Segment] = []
        /// Discontinuities in segments that left the playlist.
        var discontinuitySequence = 0
        var targetDuration = 1
        /// Whether the playlist written last was live (without `EXT-X-ENDLIST`).
        var isLive = true
    }

    /// Writes the complete segments not written yet, then the playlist (also when the stream
    /// ended or began again), then deletes what left the window.
    private func write(_ snapshot: LiveStreamHub.PlaylistSnapshot, _ written: inout DirectoryState) throws {
        let fresh = snapshot.segments.filter { $0.isComplete && $0.sequenceNumber >= written.next }
        guard !fresh.isEmpty || (snapshot.isLive != written.isLive && !written.listed.isEmpty) else { return }
        for segment in fresh {
            guard let bytes = hub.segment(segment.sequenceNumber) else { continue }
            if !written.initializations.contains(segment.initialization), let initialization = hub.initialization(segment.initialization) {
                try DurableFilePublisher.publish(initialization, at: path("init-\(segment.initialization).mp4"), replacing: true)
                written.initializations.insert(segment.initialization)
            }
            try DurableFilePublisher.publish(bytes, at: path("seg-\(segment.sequenceNumber).m4s"), replacing: true)
            written.segments.append(segment.sequenceNumber)
            written.listed.append(segment)
            written.next = segment.sequenceNumber + 1
        }
        if let windowSegments, written.listed.count > windowSegments {
            let leaving = written.listed.prefix(written.listed.count - windowSegments)
            written.discontinuitySequence += leaving.filter(\.isDiscontinuity).count
            written.listed.removeFirst(leaving.count)
        }
        written.targetDuration = snapshot.targetDuration
        written.isLive = snapshot.isLive
        try writePlaylist(written, codecs: snapshot.codecs, isLive: snapshot.isLive, partTarget: snapshot.partTarget,
                          targetDuration: snapshot.targetDuration)
        // Initialization segments no listed segment needs any more.
        let needed = written.listed.map(\.initialization).min() ?? 0
        for number in written.initializations where number < needed {
            try? RandomAccessFile.remove(path("init-\(number).mp4"))
            written.initializations.remove(number)
        }
        if let windowSegments {
            // Kept a few segments past the window: a player may still be fetching them.
            while written.segments.count > windowSegments + 3 {
                try? RandomAccessFile.remove(path("seg-\(written.segments.removeFirst()).m4s"))
            }
        }
    }

    /// Puts the playlist of the segments written in place; a finished one ends with
    /// `EXT-X-ENDLIST`.
    private func writePlaylist(_ written: DirectoryState, codecs: String, isLive: Bool, partTarget: Double, targetDuration: Int) throws {
        let playlist = LLHLSPlaylist(
            snapshot: .init(segments: written.listed, codecs: codecs, isLive: isLive, discontinuitySequence: written.discontinuitySequence,
                            partTarget: partTarget, targetDuration: targetDuration),
            includesParts: false, isEvent: windowSegments == nil)
        try DurableFilePublisher.publish(Array(playlist.text.utf8), at: path("live.m3u8"), replacing: true)
    }

    private func path(_ name: String) -> String { directory + "/" + name }
}
