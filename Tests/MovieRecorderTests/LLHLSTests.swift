import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder
extension LiveViewTestGroup {
    /// Low-Latency HLS from the live view server, checked as RFC 8216bis says and read by real
    /// players: a strict parse of the playlist, the fragments' times and IDRs, a blocking reload
    /// answered when the part lands, ffmpeg and Chromium's own HLS.
    @Suite struct LLHLSTests {
        /// A media playlist, parsed strictly: every line a known tag, a URI or blank.
        struct Playlist {
            struct Part { var duration: Double; var uri: String; var independent: Bool }
            struct Segment { var sequence: Int; var duration: Double?; var uri: String?; var parts: [Part] = []; var map: String; var discontinuity: Bool }
            var targetDuration = 0
            var partTarget = 0.0
            var partHoldBack = 0.0
            var canBlockReload = false
            var mediaSequence = 0
            var independentSegments = false
            var segments: [Segment] = []
            var preloadHint: String?
            var programDates = 0

            init(_ text: String) throws {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                guard lines.first == "#EXTM3U" else { throw MissingTool(description: "no #EXTM3U: \(text.prefix(100))") }
                var map = "", pending = Segment(sequence: 0, parts: [], map: "", discontinuity: false), started = false
                func attributes(_ line: String) -> [String: String] {
                    var result: [String: String] = [:]
                    let body = line.drop { $0 != ":" }.dropFirst()
                    var rest = Substring(body)
                    while !rest.isEmpty {
                        let key = rest.prefix { $0 != "=" }
                        rest = rest.dropFirst(key.count + 1)
                        var value: Substring
                        if rest.first == "\"" {
                            value = rest.dropFirst().prefix { $0 != "\"" }
                            rest = rest.dropFirst(value.count + 2)
                        } else {
                            value = rest.prefix { $0 != "," }
                            rest = rest.dropFirst(value.count)
                        }
                        if rest.first == "," { rest = rest.dropFirst() }
                        result[String(key)] = String(value)
                    }
                    return result
                }
                for line in lines.dropFirst() where !line.isEmpty {
                    let tag = line.prefix { $0 != ":" }
                    if !started { pending.sequence = mediaSequence; pending.map = map; started = true }
                    switch tag {
                    case "#EXT-X-VERSION", "#EXT-X-DISCONTINUITY-SEQUENCE": break
                    case "#EXT-X-TARGETDURATION": targetDuration = Int(line.dropFirst(tag.count + 1)) ?? -1
                    case "#EXT-X-MEDIA-SEQUENCE": mediaSequence = Int(line.dropFirst(tag.count + 1)) ?? -1; pending.sequence = mediaSequence
                    case "#EXT-X-INDEPENDENT-SEGMENTS": independentSegments = true
                    case "#EXT-X-SERVER-CONTROL":
                        let a = attributes(line)
                        canBlockReload = a["CAN-BLOCK-RELOAD"] == "YES"
                        partHoldBack = Double(a["PART-HOLD-BACK"] ?? "") ?? 0
                    case "#EXT-X-PART-INF": partTarget = Double(attributes(line)["PART-TARGET"] ?? "") ?? 0
                    case "#EXT-X-MAP": map = attributes(line)["URI"] ?? ""; pending.map = map
                    case "#EXT-X-DISCONTINUITY": pending.discontinuity = true
                    case "#EXT-X-PROGRAM-DATE-TIME": programDates += 1
                    case "#EXT-X-PART":
                        let a = attributes(line)
                        pending.parts.append(Part(duration: Double(a["DURATION"] ?? "") ?? -1, uri: a["URI"] ?? "", independent: a["INDEPENDENT"] == "YES"))
                    case "#EXTINF": pending.duration = Double(line.dropFirst(tag.count + 1).prefix { $0 != "," }) ?? -1
                    case "#EXT-X-PRELOAD-HINT":
                        let a = attributes(line)
                        guard a["TYPE"] == "PART" else { throw MissingTool(description: "preload hint of type \(a["TYPE"] ?? "")") }
                        preloadHint = a["URI"]
                    default:
                        guard !line.hasPrefix("#") else { throw MissingTool(description: "unknown tag: \(line)") }
                        pending.uri = line
                        segments.append(pending)
                        pending = Segment(sequence: pending.sequence + 1, parts: [], map: map, discontinuity: false)
                    }
                }
                if !pending.parts.isEmpty { segments.append(pending) }
            }
        }

        /// The video samples of fragmented MP4 bytes, walked box by box: each chunk's `tfdt` and its
        /// samples' durations and sync flags (track 1).
        static func videoRuns(_ bytes: [UInt8]) throws -> [(time: UInt64, durations: [UInt32], firstIsSync: Bool)] {
            var runs: [(UInt64, [UInt32], Bool)] = []
            var at = 0
            while at + 8 <= bytes.count {
                let size = Int(UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3]))
                let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
                guard size >= 8, at + size <= bytes.count else { throw MissingTool(description: "a box of size \(size) at \(at) runs past the end") }
                if type == "moof" {
                    let tree = try AtomTree(source: InMemoryMovieSource(Array(bytes[at..<(at + size)])))
                    for traf in tree.atoms.first?.children("traf") ?? [] {
                        guard let tfhd = traf.child("tfhd"), let tfdt = traf.child("tfdt"), let trun = traf.child("trun") else { continue }
                        guard try tfhd.decode(TrackFragmentHeaderAtom.self).trackID == 1 else { continue }
                        let time = try tfdt.decode(TrackFragmentDecodeTimeAtom.self)
                        let run = try trun.decode(TrackRunAtom.self)
                        runs.append((time.baseMediaDecodeTime, run.samples.map { $0.duration ?? 0 },
                                     run.samples.first?.flags == TrackRunAtom.syncSampleFlags))
                    }
                }
                at += size
            }
            return runs
        }

        @Test func thePlaylistPartsAndSegmentsAreConsistent() async throws {
            let live = try await LiveSession.start()
            defer { Task { await live.stop() } }
            // Blocking reloads, each for the next segment, until four are complete.
            var playlist = try Playlist("#EXTM3U")
            for _ in 0..<10 where playlist.segments.filter({ $0.uri != nil }).count < 4 {
                let next = (playlist.segments.last?.sequence ?? 0) + 1
                let (status, body) = try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=\(next)")
                #expect(status == 200)
                playlist = try Playlist(String(decoding: body, as: UTF8.self))
            }
            #expect(playlist.canBlockReload && playlist.independentSegments && playlist.targetDuration == 1)
            #expect(abs(playlist.partTarget - 0.2) < 0.0005 && playlist.partHoldBack >= 3 * playlist.partTarget - 0.0005)
            #expect(playlist.preloadHint != nil && playlist.programDates == playlist.segments.count)
            let complete = playlist.segments.filter { $0.uri != nil }
            #expect(complete.count >= 4, "\(playlist.segments.map(\.sequence))")
            var lastEnd: UInt64?
            for segment in complete {
                let duration = try #require(segment.duration)
                #expect(Int(duration.rounded()) <= playlist.targetDuration)
                let (segmentStatus, data) = try httpGet(live.base + "/hls/" + segment.uri!)
                #expect(segmentStatus == 200)
                let runs = try Self.videoRuns([UInt8](data))
                #expect(runs.first?.firstIsSync == true, "segment \(segment.sequence) starts with an IDR")
                // Continuous decode times across chunks and segments; the durations sum to EXTINF.
                for run in runs {
                    if let lastEnd { #expect(run.time == lastEnd, "tfdt \(run.time) after a run that ended at \(lastEnd)") }
                    lastEnd = run.time + run.durations.reduce(0) { $0 + UInt64($1) }
                }
                let ticks = runs.reduce(0) { $0 + $1.durations.reduce(0) { $0 + UInt64($1) } }
                #expect(abs(Double(ticks) / 90_000 - duration) < 0.0015, "segment \(segment.sequence): \(ticks) ticks, EXTINF \(duration)")
                // Its parts, where listed, are its bytes in order, none longer than the part target.
                if !segment.parts.isEmpty {
                    var joined = Data()
                    for part in segment.parts {
                        #expect(part.duration <= playlist.partTarget + 0.0005)
                        joined += try httpGet(live.base + "/hls/" + part.uri).body
                    }
                    #expect(joined == data, "segment \(segment.sequence)'s parts are its bytes")
                    #expect(segment.parts.first?.independent == true)
                }
            }
        }

        /// A request for the part the preload hint names, and a blocking playlist reload for it, are
        /// answered once that part is complete: later than at once, sooner than a poll interval.
        @Test func aBlockingReloadAnswersWhenThePartLands() async throws {
            let live = try await LiveSession.start(audio: false)
            defer { Task { await live.stop() } }
            _ = try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=2")
            var delays: [Double] = []
            for _ in 0..<5 {
                let playlist = try Playlist(String(decoding: try httpGet(live.base + "/hls/live.m3u8").body, as: UTF8.self))
                let hint = try #require(playlist.preloadHint)
                let numbers = try #require(LiveViewRoutes.numbers(in: hint, prefix: "part-", suffix: ".m4s"))
                let started = Date()
                let (status, body) = try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=\(numbers[0])&_HLS_part=\(numbers[1])")
                delays.append(Date().timeIntervalSince(started))
                #expect(status == 200)
                let after = try Playlist(String(decoding: body, as: UTF8.self))
                #expect(after.segments.contains { $0.sequence == numbers[0] && $0.parts.count > numbers[1] }, "the answer holds \(hint)")
            }
            // A part lasts 0.2 s: the answer comes within that (plus the encode), never at once for all.
            #expect(delays.allSatisfy { $0 < 0.45 }, "\(delays)")
            #expect(delays.contains { $0 > 0.02 }, "\(delays)")
        }

        /// hls.js (1.6, from the gradio wheel on PyPI: Debian does not package it) plays the
        /// playlist in low-latency mode, under two seconds behind by its own program-date clock.
        /// The URIs in the playlist carry the token.
        @Test func hlsJSPlaysTheLivePlaylistInLowLatencyMode() async throws {
            // hls.js runs in a page of another origin, which only a server with a token lets read.
            let live = try await LiveSession.start(accessToken: "hls-js-token-0123456789")
            defer { Task { await live.stop() } }
            _ = try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=1&token=hls-js-token-0123456789")
            let script = URL(fileURLWithPath: browserScript).deletingLastPathComponent().appendingPathComponent("hlsjs.py").path
            let played = try run("/usr/bin/env", ["python3", script, live.base + "/hls/live.m3u8?token=hls-js-token-0123456789", "--seconds", "3"])
            let report = try JSONSerialization.jsonObject(with: played.outputData) as? [String: Any] ?? [:]
            #expect(report["played"] as? Bool == true && report["fatal"] is NSNull, "\(report) \(played.error.suffix(300))")
            let behind = report["behind"] as? Double ?? .infinity
            #expect(behind < 2000, "hls.js plays \(behind) ms behind the capture clock")
        }

        /// A turn reaches HLS players as a new initialization segment, its matrix turned, after a
        /// discontinuity; the segment after it starts with an IDR.
        @Test func aTurnStartsADiscontinuityWithATurnedInitialization() async throws {
            let live = try await LiveSession.start(audio: false)
            defer { Task { await live.stop() } }
            _ = try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=1")
            try live.live.setVideoRotationAngle(270)
            var playlist = try Playlist("#EXTM3U")
            for _ in 0..<10 where !playlist.segments.contains(where: { $0.discontinuity && $0.uri != nil }) {
                let next = (playlist.segments.last?.sequence ?? 1) + 1
                playlist = try Playlist(String(decoding: try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=\(next)").body, as: UTF8.self))
            }
            let turned = try #require(playlist.segments.first { $0.discontinuity && $0.uri != nil }, "\(playlist.segments.map(\.sequence))")
            let before = try #require(playlist.segments.last { $0.sequence < turned.sequence })
            #expect(turned.map != before.map, "a new EXT-X-MAP after the discontinuity")
            let initialization = try httpGet(live.base + "/hls/" + turned.map).body
            let tree = try AtomTree(source: InMemoryMovieSource([UInt8](initialization)))
            let tkhd = try #require(tree.atoms.first { $0.type == "moov" }?.child("trak")?.child("tkhd")).decode(TrackHeaderAtom.self)
            #expect(VideoOrientation(matrix: tkhd.matrix)?.rotationAngle == 270)
            let runs = try Self.videoRuns([UInt8](try httpGet(live.base + "/hls/" + turned.uri!).body))
            #expect(runs.first?.firstIsSync == true)
            // ffprobe reads the turned initialization and segment as a 270° picture.
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let file = directory.file("turned.mp4")
            #expect(FileManager.default.createFile(atPath: file, contents: initialization + (try httpGet(live.base + "/hls/" + turned.uri!).body)))
            #expect(try ffprobeStreams(file).first?.rotation == 90, "ffprobe says counter-clockwise 90 for a 270° matrix")
        }

        /// ffmpeg reads the live playlist (parts, segments, the initialization) with no error, and
        /// Chromium plays it with its own HLS support.
        @Test func ffmpegAndChromiumPlayTheLivePlaylist() async throws {
            let live = try await LiveSession.start()
            defer { Task { await live.stop() } }
            _ = try httpGet(live.base + "/hls/live.m3u8?_HLS_msn=2")
            let read = try run("ffmpeg", ["-v", "error", "-i", live.base + "/hls/live.m3u8", "-t", "3", "-f", "null", "-"])
            #expect(read.status == 0 && read.error.isEmpty, "ffmpeg: \(read.error.suffix(600))")
            let probe = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0",
                                            live.base + "/hls/live.m3u8"])
            #expect(probe.output.contains("h264,640,360") && probe.output.contains("aac"), "\(probe.output) \(probe.error)")
            let report = try browse(live.base + "/hls/", ["--wait", "document.getElementById('video').currentTime > 1.5", "--timeout", "20",
                                                          "--eval", "document.getElementById('video').videoWidth"])
            #expect(report.waited && report.error == nil, "\(report.error ?? "Chromium did not play the playlist")")
            #expect(report.values.first as? Int == 640)
        }
    }
}
