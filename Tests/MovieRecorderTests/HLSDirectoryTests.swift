import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieRecorder

/// A live stream fed by hand into an output's hub, one whole segment at a time, as the stream's
/// thread would: the directory writer's tests wait for each file it writes, never for the clock.
struct HandFedStream {
    let output = LiveStreamOutput()
    private var stream = 0
    private var chunk = 0
    /// Every segment added, as the playlist lists it.
    private(set) var segments: [LiveStreamHub.PlaylistSnapshot.Segment] = []

    /// Begins a stream (a new initialization segment) whose segments last about `segmentDuration`.
    mutating func begin(segmentDuration: Double = 1) {
        let start = LiveStreamStart(codecs: "avc1.64001E", pictureCodecs: "avc1.64001E", pageInitialization: [1, 2, 3],
                                    picturePageInitialization: [1, 2, 3], timescale: 90_000, partTarget: 0.2, segmentDuration: segmentDuration)
        stream = output.hub.begin(start, width: 320, height: 180)
        output.hub.addInitialization(Array("init".utf8), stream: stream)
    }

    /// Adds one complete segment of five 200 ms parts.
    mutating func addSegment() {
        for part in 0..<5 {
            let time = UInt64(chunk) * 18_000
            output.hub.append(LiveChunk(bytes: Array("chunk \(chunk)".utf8), pictureBytes: nil, time: time, end: time + 18_000,
                                        isIndependent: part == 0, startsSegment: part == 0, startsPart: true, orientation: .up,
                                        captureTime: 1_700_000_000_000_000_000 + UInt64(chunk) * 200_000_000), stream: stream)
            output.hub.completePart(stream: stream)
            chunk += 1
        }
        output.hub.completeSegment(stream: stream)
        if let last = output.hub.playlist(waitingFor: nil, part: nil, until: 0)?.segments.last { segments.append(last) }
    }
}

/// The names of the segments `playlist` lists, in order; none when it cannot be read.
func listedSegments(_ playlist: String) -> [String] {
    guard let text = try? String(contentsOfFile: playlist, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").filter { $0.hasPrefix("seg-") }.map(String.init)
}

/// A file's permission bits, its type bits aside.
func permissionBits(_ path: String) -> UInt32 {
    var info = stat()
    guard lstat(path, &info) == 0 else { return 0xFFFF }
    return UInt32(info.st_mode) & 0o7777
}

/// A file's inode number: the same file, or one put in its place.
func inode(_ path: String) -> UInt64 {
    var info = stat()
    guard stat(path, &info) == 0 else { return 0 }
    return UInt64(info.st_ino)
}

/// ``HLSDirectoryWriter`` against a hand-fed stream: the files' mode, the directories it
/// refuses, a name someone else took, the EVENT playlist that grows by appending, and the
/// playlist ended whenever writing stops.
@Suite struct HLSDirectoryTests {
    /// Starts a writer into a new directory `hls` inside `directory`.
    func directoryForHLS(_ directory: TemporaryDirectory) throws -> String {
        let hls = directory.file("hls")
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: false)
        return hls
    }

    @Test func filesAreTheOwnersOnlyByDefault() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let hls = try directoryForHLS(directory)
        var stream = HandFedStream()
        stream.begin()
        let writer = try HLSDirectoryWriter(output: stream.output, directory: hls)
        stream.addSegment()
        #expect(await eventually(deadline: .seconds(30)) { listedSegments(hls + "/live.m3u8") == ["seg-0.m4s"] })
        await writer.stop()
        for name in ["live.m3u8", "init-1.mp4", "seg-0.m4s"] {
            #expect(permissionBits(hls + "/" + name) == 0o600, "\(name): \(String(permissionBits(hls + "/" + name), radix: 8))")
        }
    }

    /// For a web server running as another user: the mode asked for, exactly; one that lets
    /// every user change the files, or has bits beyond 0o777, is refused.
    @Test func filesHaveTheModeAskedFor() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let hls = try directoryForHLS(directory)
        var stream = HandFedStream()
        stream.begin()
        let writer = try HLSDirectoryWriter(output: stream.output, directory: hls, fileMode: 0o644)
        #expect(writer.fileMode == 0o644 && writer.windowSegments == 6)
        stream.addSegment()
        #expect(await eventually(deadline: .seconds(30)) { listedSegments(hls + "/live.m3u8") == ["seg-0.m4s"] })
        await writer.stop()
        for name in ["live.m3u8", "init-1.mp4", "seg-0.m4s"] { #expect(permissionBits(hls + "/" + name) == 0o644, "\(name)") }
        for (mode, words) in [(UInt32(0o666), "lets every user change"), (0o4644, "bits beyond 0o777")] {
            do {
                try await HLSDirectoryWriter(output: stream.output, directory: hls, fileMode: mode).stop()
                Issue.record("0o\(String(mode, radix: 8)) was accepted")
            } catch {
                #expect(error.code == .invalidSettings && error.message.contains("0o" + String(mode, radix: 8)) && error.message.contains(words), "\(error)")
            }
        }
    }

    @Test func aDirectoryOthersCouldRepointOrFillIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let real = try directoryForHLS(directory)
        let link = directory.file("link"), open = directory.file("open"), shared = directory.file("shared"), file = directory.file("file")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        for (path, mode) in [(open, 0o777), (shared, 0o1777)] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            #expect(chmod(path, mode_t(mode)) == 0)
        }
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        for (path, words) in [(link, "is a symbolic link"), (link + "/", "is a symbolic link"), (open, "writable by every user"),
                              (file, "is not a directory"), (directory.file("missing"), "does not exist")] {
            do {
                let writer = try HLSDirectoryWriter(output: LiveStreamOutput(), directory: path)
                await writer.stop()
                Issue.record("\(path) was accepted")
            } catch {
                #expect(error.code == .invalidSettings && error.message.contains(path) && error.message.contains(words), "\(error)")
            }
        }
        // Writable by everyone but sticky, as /tmp is: no one can remove or rename another's file.
        let writer = try HLSDirectoryWriter(output: LiveStreamOutput(), directory: shared)
        await writer.stop()
    }

    /// Takes the name `seg-1.m4s` with `take`, then streams two segments: the writer stops at
    /// the second with an error that says `words`, at once, with the playlist ended; what
    /// held the name is left as it was.
    func expectATakenNameStopsTheWriter(saying words: String, take: (String) throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let hls = try directoryForHLS(directory)
        try take(hls + "/seg-1.m4s")
        var stream = HandFedStream()
        stream.begin()
        let writer = try HLSDirectoryWriter(output: stream.output, directory: hls)
        stream.addSegment()
        #expect(await eventually(deadline: .seconds(30)) { listedSegments(hls + "/live.m3u8") == ["seg-0.m4s"] })
        stream.addSegment()
        #expect(await eventually(deadline: .seconds(30)) { writer.error != nil }, "said as it happens, not at stop()")
        let error = try #require(writer.error)
        #expect(error.code == .fileError && error.message.contains(hls + "/seg-1.m4s") && error.message.contains(words), "\(error)")
        let playlist = try String(contentsOfFile: hls + "/live.m3u8", encoding: .utf8)
        #expect(listedSegments(hls + "/live.m3u8") == ["seg-0.m4s"] && playlist.hasSuffix("#EXT-X-ENDLIST\n"), "\(playlist)")
        // Reported on the stream, which then finishes: the writer's thread has ended, unasked.
        var reports = writer.errors.makeAsyncIterator()
        #expect(await reports.next() == error)
        #expect(await reports.next() == nil)
        await writer.stop()
    }

    @Test func aSymbolicLinkAtASegmentsNameStopsTheWriterAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let target = directory.file("someone-elses")
        #expect(FileManager.default.createFile(atPath: target, contents: Data("theirs".utf8)))
        try await expectATakenNameStopsTheWriter(saying: "is a symbolic link") { name in
            try FileManager.default.createSymbolicLink(atPath: name, withDestinationPath: target)
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "theirs")
    }

    @Test(.enabled(if: geteuid() == 0, "only root can make a file another user owns"))
    func anotherUsersFileAtASegmentsNameStopsTheWriterAtOnce() async throws {
        try await expectATakenNameStopsTheWriter(saying: "owned by user 65534") { name in
            #expect(FileManager.default.createFile(atPath: name, contents: Data("theirs".utf8)))
            #expect(chown(name, 65534, 65534) == 0)
        }
    }

    /// Whatever stops the writer (here a directory where a segment goes, which a rename cannot
    /// replace), the playlist it leaves is ended, so players stop waiting for more.
    @Test func aWriterThatFailsEndsItsPlaylist() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let hls = try directoryForHLS(directory)
        try FileManager.default.createDirectory(atPath: hls + "/seg-1.m4s", withIntermediateDirectories: false)
        var stream = HandFedStream()
        stream.begin()
        let writer = try HLSDirectoryWriter(output: stream.output, directory: hls)
        stream.addSegment()
        #expect(await eventually(deadline: .seconds(30)) { listedSegments(hls + "/live.m3u8") == ["seg-0.m4s"] })
        stream.addSegment()
        #expect(await eventually(deadline: .seconds(30)) { writer.error != nil })
        let playlist = try String(contentsOfFile: hls + "/live.m3u8", encoding: .utf8)
        #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"), "\(playlist)")
        await writer.stop()
    }

    /// Sixty segments into an EVENT playlist: the same file throughout, grown at its end, no
    /// line across a 4 KiB boundary, and what it lists, blank lines aside, the playlist written
    /// whole would be; stopped, it ends with `EXT-X-ENDLIST`.
    @Test func anEventPlaylistGrowsByAppending() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let hls = try directoryForHLS(directory)
        let playlist = hls + "/live.m3u8"
        var stream = HandFedStream()
        stream.begin()
        let writer = try HLSDirectoryWriter(output: stream.output, directory: hls, windowSegments: nil)
        stream.addSegment()
        #expect(await eventually(deadline: .seconds(30)) { listedSegments(playlist).count == 1 })
        let first = inode(playlist)
        for count in 2...60 {
            stream.addSegment()
            #expect(await eventually(deadline: .seconds(30)) { listedSegments(playlist).count == count }, "segment \(count)")
        }
        #expect(inode(playlist) == first, "appended to, not put in place anew")
        let bytes = Array(try String(contentsOfFile: playlist, encoding: .utf8).utf8)
        #expect(bytes.count > 4096)
        for boundary in stride(from: 4096, to: bytes.count, by: 4096) {
            #expect(bytes[boundary - 1] == UInt8(ascii: "\n"), "a line crosses byte \(boundary)")
        }
        let whole = LLHLSPlaylist(snapshot: .init(segments: stream.segments, codecs: "", isLive: true, discontinuitySequence: 0,
                                                  partTarget: 0.2, targetDuration: 1), includesParts: false, isEvent: true).text
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.split(separator: "\n") == whole.split(separator: "\n"))
        // A new stream with longer segments: the playlist put in place anew with the longer
        // target duration, then appended to again.
        stream.begin(segmentDuration: 2.5)
        stream.addSegment()
        #expect(await eventually(deadline: .seconds(30)) { listedSegments(playlist).count == 61 })
        let rewritten = inode(playlist)
        #expect(rewritten != first)
        stream.addSegment()
        #expect(await eventually(deadline: .seconds(30)) { listedSegments(playlist).count == 62 })
        await writer.stop()
        let ended = try String(contentsOfFile: playlist, encoding: .utf8)
        #expect(ended.hasSuffix("\n#EXT-X-ENDLIST\n") && inode(playlist) == rewritten)
        let endedWhole = LLHLSPlaylist(snapshot: .init(segments: stream.segments, codecs: "", isLive: false, discontinuitySequence: 0,
                                                       partTarget: 0.2, targetDuration: 3), includesParts: false, isEvent: true).text
        #expect(ended.split(separator: "\n") == endedWhole.split(separator: "\n"), "\(ended.suffix(600))")
        #expect(endedWhole.contains("#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init-2.mp4\""))
    }

    /// Appended lines that would cross a 4 KiB boundary start after it, behind newlines.
    @Test func appendedLinesDoNotCrossAPageBoundary() {
        let line = Array("#EXTINF:1.000,\nseg-12.m4s\n".utf8)
        #expect(HLSEventPlaylistFile.keepingWithinAPage(line, at: 100) == line)
        #expect(HLSEventPlaylistFile.keepingWithinAPage(line, at: 4096 - UInt64(line.count)) == line)
        #expect(HLSEventPlaylistFile.keepingWithinAPage(line, at: 4090) == Array(repeating: UInt8(ascii: "\n"), count: 6) + line)
        #expect(HLSEventPlaylistFile.keepingWithinAPage(line, at: 8191) == [UInt8(ascii: "\n")] + line)
        let long = [UInt8](repeating: UInt8(ascii: "#"), count: 5000)
        #expect(HLSEventPlaylistFile.keepingWithinAPage(long, at: 4000) == long, "longer than a page: as it is")
    }
}

extension LiveViewTestGroup {
    /// `movrec --hls-directory` with `--hls-mode`, a directory it refuses, and a name someone
    /// else took, said while it runs.
    @Suite struct HLSDirectoryCommandTests {
        /// An EVENT playlist for a web server: every file 0644, the playlist ended, and ffmpeg
        /// reads every segment it lists.
        @Test func anEventPlaylistForAWebServer() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let hls = directory.file("hls")
            try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: false)
            let result = try run(try movrecPath(), ["live", "--video", "testsrc", "--size", "320x180", "--audio", "tone", "--live", "0",
                                                    "--hls-directory", hls, "--hls-window", "0", "--hls-mode", "0644", "--duration", "4"])
            #expect(result.status == 0, "\(result.error)")
            let files = try FileManager.default.contentsOfDirectory(atPath: hls)
            #expect(files.contains("live.m3u8") && files.contains("seg-0.m4s") && !files.contains { $0.hasPrefix(".movrec-") }, "\(files)")
            for name in files {
                #expect(permissionBits(hls + "/" + name) == 0o644, "\(name): \(String(permissionBits(hls + "/" + name), radix: 8))")
            }
            let playlist = try String(contentsOfFile: hls + "/live.m3u8", encoding: .utf8)
            #expect(playlist.contains("#EXT-X-PLAYLIST-TYPE:EVENT") && playlist.hasSuffix("#EXT-X-ENDLIST\n"), "\(playlist)")
            let listed = listedSegments(hls + "/live.m3u8")
            #expect(listed.count >= 2 && listed.first == "seg-0.m4s", "\(listed)")
            let read = try run("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v", "-show_entries", "stream=nb_read_packets",
                                           "-of", "csv=p=0", hls + "/live.m3u8"])
            // The count shows twice, for the stream and again for the HLS program that holds it.
            let pictures = read.output.split(whereSeparator: \.isNewline).first.flatMap { Int($0) } ?? 0
            #expect(read.status == 0 && read.error.isEmpty && pictures >= 30 * listed.count - 30, "\(read.output) \(read.error.suffix(400))")
        }

        /// A symbolic link where a segment goes: `movrec live` says so while it runs (its
        /// duration is a minute), once, and exits with 1 when stopped.
        @Test func aTakenNameIsSaidWhenItHappens() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let hls = directory.file("hls")
            try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: false)
            try FileManager.default.createSymbolicLink(atPath: hls + "/seg-1.m4s", withDestinationPath: "/dev/null")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try movrecPath())
            process.arguments = ["live", "--video", "testsrc", "--size", "320x180", "--audio", "none", "--live", "0",
                                 "--hls-directory", hls, "--duration", "60"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            let said = LockedValue(Data()), finished = DispatchSemaphore(value: 0)
            try process.run()
            Thread.detachNewThread {
                while true {
                    let data = errors.fileHandleForReading.availableData
                    if data.isEmpty { break }
                    said.withLock { $0.append(data) }
                }
                finished.signal()
            }
            let text = { @Sendable in String(decoding: said.withLock { $0 }, as: UTF8.self) }
            let printed = await eventually(deadline: .seconds(40)) { text().contains("seg-1.m4s") }
            let running = process.isRunning
            process.interrupt()
            process.waitUntilExit()
            finished.wait()
            #expect(printed && running, "said while it runs: \(text())")
            #expect(process.terminationStatus == 1, "\(text())")
            #expect(text().components(separatedBy: "seg-1.m4s").count == 2 && text().contains("symbolic link"), "said once: \(text())")
        }

        @Test func badHLSOptionsAreUsageErrorsAndAnOpenDirectoryIsRefused() throws {
            let movrec = try movrecPath()
            for (arguments, expected) in [
                (["live", "--hls-directory", "/tmp", "--hls-mode", "0999"], "--hls-mode 0999 is not"),
                (["live", "--hls-directory", "/tmp", "--hls-mode", "rw-r--r--"], "--hls-mode rw-r--r-- is not"),
                (["live", "--hls-directory", "/tmp", "--hls-mode", "04644"], "--hls-mode 04644 is not"),
                (["live", "--hls-directory", "/tmp", "--hls-mode", "0666"], "--hls-mode 0666 would let every user"),
                (["live", "--hls-mode", "0644"], "--hls-mode needs --hls-directory"),
            ] {
                let result = try run(movrec, arguments)
                #expect(result.status == 2 && result.error.contains(expected), "\(arguments): \(result.status) \(result.error)")
            }
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let open = directory.file("open")
            try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
            #expect(chmod(open, 0o777) == 0)
            let result = try run(movrec, ["live", "--video", "testsrc", "--live", "0", "--hls-directory", open, "--duration", "1"])
            #expect(result.status == 1 && result.error.contains(open) && result.error.contains("writable by every user"), "\(result.error)")
        }
    }
}
