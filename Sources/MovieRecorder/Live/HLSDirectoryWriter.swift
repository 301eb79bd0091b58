import MovieContainer
import MoviePlatform

/// Writes a ``LiveStreamOutput``'s stream into a directory as HLS, for any static web server
/// (nginx, a CDN) to serve to many viewers: `live.m3u8`, `init-N.mp4` and one `seg-N.m4s` per
/// segment of about a second, each put in place whole (written beside, then renamed), so a
/// server never sends a partial file.
///
/// The playlist is a sliding window of ``windowSegments`` segments, older files deleted a few
/// segments later (a player may still be reading them); with `windowSegments` nil it is an
/// `EVENT` playlist that keeps every segment, grown by appending each segment's lines (a few
/// dozen bytes written and flushed a segment, however long the event runs). Parts are not
/// written: blocking playlist reloads, which Low-Latency HLS needs, take a server that answers
/// them (``LiveViewServer``).
///
/// The files are the owner's alone (``fileMode`` 0600) unless a web server running as another
/// user must read them. A directory that a symbolic link names, or that every user may write
/// without the sticky bit, is refused; a file name that something this user did not write
/// already holds (another user's file, a symbolic link) stops the writer at once, reported in
/// ``errors``. Whenever writing stops, the playlist is ended with `EXT-X-ENDLIST` where it can
/// be.
///
/// It runs on a thread of its own and never holds up the stream: when the disk is slower than
/// the stream it skips to the newest segment.
public final class HLSDirectoryWriter: Sendable {
    /// The directory written to.
    public let directory: String
    /// How many segments the playlist lists; nil for an `EVENT` playlist that lists them all.
    public let windowSegments: Int?
    /// The permission bits of the files written, such as 0o600 (the default: the owner reads
    /// and writes them, no one else) or 0o644 (a web server running as another user reads
    /// them). Set exactly, whatever the process's umask.
    public let fileMode: UInt32
    /// The error that stops writing, as it happens: yields at most one, then finishes when the
    /// writer's thread ends (after that error, after ``stop()``, or when the output goes away).
    /// ``error`` holds the same error afterwards.
    public let errors: AsyncStream<LiveViewError>
    private let reporter: AsyncStream<LiveViewError>.Continuation
    private let hub: LiveStreamHub
    private let readers = LiveStreamHub.ReaderGroup()
    private let thread: LockedValue<DedicatedThread?> = LockedValue(nil)
    private let failure = LockedValue<LiveViewError?>(nil)

    /// Starts writing `output`'s stream into `directory`, which must exist, its files readable
    /// by their owner alone (``fileMode`` 0o600).
    /// - Throws: ``LiveViewError`` with ``LiveViewError/Code/invalidSettings`` when the
    ///   directory does not exist, is a symbolic link or is writable by every user without the
    ///   sticky bit, or `windowSegments` is below 3.
    public convenience init(output: LiveStreamOutput, directory: String, windowSegments: Int? = 6) throws(LiveViewError) {
        try self.init(output: output, directory: directory, windowSegments: windowSegments, fileMode: 0o600)
    }

    /// Starts writing `output`'s stream into `directory`, which must exist, its files with the
    /// permission bits `fileMode`.
    /// - Parameters:
    ///   - output: The stream to write.
    ///   - directory: Where to write it: a directory, not a symbolic link to one, that every
    ///     user may write only if its sticky bit is set.
    ///   - windowSegments: How many segments the playlist lists, 3 or more; nil for an `EVENT`
    ///     playlist that lists them all.
    ///   - fileMode: The files' permission bits, within 0o777 and not writable by every user:
    ///     0o600 for the owner alone, 0o644 for a web server running as another user.
    /// - Throws: ``LiveViewError`` with ``LiveViewError/Code/invalidSettings`` naming what was
    ///   refused.
    public init(output: LiveStreamOutput, directory: String, windowSegments: Int? = 6, fileMode: UInt32) throws(LiveViewError) {
        if let windowSegments, windowSegments < 3 {
            throw LiveViewError(.invalidSettings, "HLSDirectoryWriter: a window of \(windowSegments) segments is too short; give 3 or more")
        }
        try Self.check(fileMode: fileMode)
        try Self.check(directory: directory)
        self.directory = directory
        self.windowSegments = windowSegments
        self.fileMode = fileMode
        (errors, reporter) = AsyncStream.makeStream(of: LiveViewError.self, bufferingPolicy: .bufferingNewest(1))
        hub = output.hub
        let started = DedicatedThread(name: "movrec-hls") { [self] in run() }
        thread.withLock { $0 = started }
    }

    /// Why writing stopped, if it failed (a full disk, a directory removed, a file name someone
    /// else took); nil while it goes on. ``errors`` reports it as it happens.
    public var error: LiveViewError? { failure.withLock { $0 } }

    /// Stops writing; the files stay, the playlist ended with `EXT-X-ENDLIST` so players read
    /// it as finished. Waits, on a thread of its own, for the last playlist to be written. The
    /// writer runs until this is called (or the output goes away, or writing fails).
    public func stop() async {
        let (hub, readers, thread) = (self.hub, self.readers, self.thread)
        _ = try? await runOnDedicatedThread(name: "movrec-hls-stop") {
            hub.cancel(readers)
            thread.withLock { $0 }?.join()
        }
    }

    // MARK: Checks at the start

    /// Refuses permission bits beyond 0o777, or that let every user change the files.
    private static func check(fileMode: UInt32) throws(LiveViewError) {
        let octal = "0o" + String(fileMode, radix: 8)
        guard fileMode & ~0o777 == 0 else {
            throw LiveViewError(.invalidSettings, "HLSDirectoryWriter: the file mode \(octal) has bits beyond 0o777; give permission bits such as 0o600 or 0o644")
        }
        guard fileMode & 0o002 == 0 else {
            throw LiveViewError(.invalidSettings, "HLSDirectoryWriter: the file mode \(octal) lets every user change the stream's files; give one such as 0o600 or 0o644")
        }
    }

    /// Refuses a directory that is missing, not a directory, a symbolic link (whoever can change
    /// the link can send the files elsewhere), or writable by every user without the sticky bit
    /// (anyone could replace the files).
    private static func check(directory: String) throws(LiveViewError) {
        // "link/" would name the directory the link points to: the link itself is looked at.
        var path = directory
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let found: PathStatus?
        do {
            found = try PathStatus.at(path)
        } catch {
            throw LiveViewError(.invalidSettings, "HLSDirectoryWriter: the directory \(directory) cannot be looked at: \(error)")
        }
        guard let found else {
            throw LiveViewError(.invalidSettings, "HLSDirectoryWriter: the directory \(directory) does not exist; create it first")
        }
        switch found.kind {
        case .directory: break
        case .symbolicLink:
            throw LiveViewError(.invalidSettings, "HLSDirectoryWriter: the directory \(directory) is a symbolic link, which whoever can change it could point elsewhere; give the path of the directory itself")
        default:
            throw LiveViewError(.invalidSettings, "HLSDirectoryWriter: \(directory) is not a directory; give a directory that exists")
        }
        if found.isWritableByOthers && !found.isSticky {
            throw LiveViewError(.invalidSettings, "HLSDirectoryWriter: the directory \(directory) is writable by every user (mode 0\(String(found.permissions, radix: 8))) without the sticky bit, so anyone could replace its files; remove that permission (chmod o-w) or give a directory only you can write")
        }
    }

    // MARK: Writing (the writer's thread)

    private func run() {
        var written = DirectoryState()
        defer { reporter.finish() }
        while true {
            let deadline = SystemClock.monotonicNanoseconds() + 1_000_000_000
            let snapshot = hub.playlist(waitingFor: written.next, part: nil, until: deadline, group: readers)
            if hub.isStopped(readers) { break }
            do {
                if let snapshot { try write(snapshot, &written) }
            } catch {
                // Ended before the error is reported, so players have stopped waiting by then.
                try? endPlaylist(&written)
                report(error)
                return
            }
            // Once the stream has ended the playlist is not waited for: wait for the next stream.
            if snapshot?.isLive != true { _ = hub.waitForStream(until: deadline, group: readers) }
        }
        do {
            try endPlaylist(&written)
        } catch {
            report(error)
        }
    }

    private func report(_ error: any Error) {
        let reported: LiveViewError
        if let taken = error as? NameTaken {
            reported = LiveViewError(.fileError, "HLSDirectoryWriter: \(taken.path) \(taken.holder), not a file this writer put there, so writing stopped; someone else can create files in \(directory): give a directory only you can write, or remove that and start again")
        } else {
            reported = LiveViewError(.fileError, "HLSDirectoryWriter: writing \(directory): \(error); free space or fix the directory")
        }
        failure.withLock { $0 = reported }
        reporter.yield(reported)
    }

    /// A file name the writer needs that something it did not write holds.
    private struct NameTaken: Error {
        let path: String
        /// What holds it: "is a symbolic link", "is a file owned by user 1001"…
        let holder: String
    }

    /// What the directory holds so far.
    private struct DirectoryState {
        var next = 0
        var initializations: Set<Int> = []
        /// A sliding window's segment files on disk, oldest first.
        var segments: [Int] = []
        /// Segments written and not listed yet.
        var unlisted: [LiveStreamHub.PlaylistSnapshot.Segment] = []
        /// The segments a sliding window's playlist lists.
        var listed: [LiveStreamHub.PlaylistSnapshot.Segment] = []
        /// Discontinuities in segments that left the window.
        var discontinuitySequence = 0
        var targetDuration = 1
        /// An EVENT playlist's file, once its first segment is listed.
        var eventPlaylist: HLSEventPlaylistFile?
    }

    /// Writes the complete segments not written yet, then lists them, then deletes what left
    /// a sliding window.
    private func write(_ snapshot: LiveStreamHub.PlaylistSnapshot, _ written: inout DirectoryState) throws {
        let fresh = snapshot.segments.filter { $0.isComplete && $0.sequenceNumber >= written.next }
        guard !fresh.isEmpty else { return }
        for segment in fresh {
            guard let bytes = hub.segment(segment.sequenceNumber) else { continue }
            if !written.initializations.contains(segment.initialization), let initialization = hub.initialization(segment.initialization) {
                try publish(initialization, as: "init-\(segment.initialization).mp4")
                written.initializations.insert(segment.initialization)
            }
            try publish(bytes, as: "seg-\(segment.sequenceNumber).m4s")
            if windowSegments != nil { written.segments.append(segment.sequenceNumber) }
            written.unlisted.append(segment)
            written.next = segment.sequenceNumber + 1
        }
        if let windowSegments {
            written.targetDuration = snapshot.targetDuration
            try listInWindow(&written, windowSegments: windowSegments, isLive: snapshot.isLive)
            deleteLeftBehind(&written, windowSegments: windowSegments)
        } else {
            // Every segment stays listed, so the target duration only grows.
            written.targetDuration = max(written.targetDuration, snapshot.targetDuration)
            try listInEvent(&written)
        }
    }

    /// Lists what was written and ends the playlist with `EXT-X-ENDLIST`.
    private func endPlaylist(_ written: inout DirectoryState) throws {
        if let windowSegments {
            guard !written.listed.isEmpty || !written.unlisted.isEmpty else { return }
            try listInWindow(&written, windowSegments: windowSegments, isLive: false)
        } else {
            try listInEvent(&written)
            try written.eventPlaylist?.end()
            written.eventPlaylist = nil
        }
    }

    /// Slides the window over the segments written and puts its playlist in place whole.
    private func listInWindow(_ written: inout DirectoryState, windowSegments: Int, isLive: Bool) throws {
        written.listed += written.unlisted
        written.unlisted = []
        if written.listed.count > windowSegments {
            let leaving = written.listed.prefix(written.listed.count - windowSegments)
            written.discontinuitySequence += leaving.filter(\.isDiscontinuity).count
            written.listed.removeFirst(leaving.count)
        }
        let playlist = LLHLSPlaylist(
            snapshot: .init(segments: written.listed, codecs: "", isLive: isLive, discontinuitySequence: written.discontinuitySequence,
                            partTarget: 0, targetDuration: written.targetDuration),
            includesParts: false)
        try publish(Array(playlist.text.utf8), as: "live.m3u8")
    }

    /// Appends the segments written to the EVENT playlist, which the first of them creates.
    private func listInEvent(_ written: inout DirectoryState) throws {
        guard !written.unlisted.isEmpty else { return }
        if written.eventPlaylist == nil {
            try requireOwnName("live.m3u8")
            written.eventPlaylist = try HLSEventPlaylistFile(path: path("live.m3u8"), segments: written.unlisted,
                                                             targetDuration: written.targetDuration, permissions: fileMode)
        } else {
            if written.targetDuration > written.eventPlaylist?.targetDuration ?? .max {
                try requireOwnName("live.m3u8")
                try written.eventPlaylist?.raiseTargetDuration(to: written.targetDuration)
            }
            try written.eventPlaylist?.append(written.unlisted)
        }
        written.unlisted = []
    }

    /// Deletes initialization segments no listed segment needs any more, and segment files a
    /// few past the window: a player may still be fetching them.
    private func deleteLeftBehind(_ written: inout DirectoryState, windowSegments: Int) {
        let needed = written.listed.map(\.initialization).min() ?? 0
        for number in written.initializations where number < needed {
            try? RandomAccessFile.remove(path("init-\(number).mp4"))
            written.initializations.remove(number)
        }
        while written.segments.count > windowSegments + 3 {
            try? RandomAccessFile.remove(path("seg-\(written.segments.removeFirst()).m4s"))
        }
    }

    /// Puts `bytes` in place as `name`, with the writer's file mode, unless something this
    /// writer did not put there holds the name.
    /// - Throws: `NameTaken`, or ``FileError`` naming the file and the step.
    private func publish(_ bytes: [UInt8], as name: String) throws {
        try requireOwnName(name)
        do {
            try DurableFilePublisher.publish(bytes, at: path(name), replacing: true, permissions: fileMode)
        } catch {
            // Taken while it was written: a sticky directory refuses to rename over another's file.
            try requireOwnName(name)
            throw error
        }
    }

    /// Throws `NameTaken` when `name` holds anything but a regular file of this user: the
    /// writer's own from before, or nothing. Names are predictable, so in a directory others
    /// can write (sticky, as /tmp) someone can take one first.
    private func requireOwnName(_ name: String) throws {
        guard let found = try PathStatus.at(path(name)) else { return }
        switch found.kind {
        case .regularFile where found.isOwnedByThisUser: return
        case .regularFile: throw NameTaken(path: path(name), holder: "is a file owned by user \(found.owner)")
        case .symbolicLink: throw NameTaken(path: path(name), holder: "is a symbolic link")
        case .directory: throw NameTaken(path: path(name), holder: "is a directory")
        case .other: throw NameTaken(path: path(name), holder: "is not a regular file")
        }
    }

    private func path(_ name: String) -> String { directory + "/" + name }
}
