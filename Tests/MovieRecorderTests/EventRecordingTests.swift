import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

extension RealTimeMetadataTestGroup {
    /// Event clips saved while a live recording goes on: a clip reaches back to the last IDR at
    /// or before its pre-roll and on through its post-roll, every frame once, its audio the
    /// recording's sample for sample; a second trigger extends it; an accelerometer's bump saves
    /// one and a nudge does not; retention never deletes what a clip still needs.
    @Suite(.serialized) struct EventRecordingTests {
        static let width = EventClipTests.width, height = EventClipTests.height

        /// A live recording of the test pattern (and the tone) with event clips in `events`.
        struct Rig {
            let session = CaptureSession()
            let movie = MovieFileOutput()
            /// The events in order, read as they come on a thread of their own (none lost while
            /// the cooperative pool is busy) until the recording finishes.
            let events: RecordingEvents

            init(events: String, audio: AudioEncoderSettings?, configure: (MovieFileOutput) -> Void = { _ in }) async throws {
                let camera = try TestPatternSource(width: EventRecordingTests.width, height: EventRecordingTests.height,
                                                   frameRate: FrameRate(frames: 30))
                var settings = VideoEncoderSettings()
                settings.preset = "ultrafast"
                settings.keyframeInterval = 45  // IDRs 1.5 s apart: a clip's start is not one by chance
                movie.encoderSettings = settings
                if let audio { movie.audioSettings = audio }
                movie.eventClipSettings = EventClipSettings(directory: events, preRollDuration: .seconds(3))
                configure(movie)
                let tone = audio == nil ? nil : try ToneSource()
                try await session.configure { [movie] config in
                    try config.addInput(camera)
                    if let tone { try config.addInput(tone) }
                    try config.addOutput(movie)
                }
                self.events = RecordingEvents(of: movie)
                try await session.startRunning()
            }

            /// Stops the recording and the session; the events in order.
            func stop() async -> [MovieFileOutput.Event] {
                _ = await movie.stopRecording()
                await session.stopRunning()
                return await events.untilFinished()
            }

            /// Waits until `count` event clips are finished.
            func waitForClips(_ count: Int) async -> Bool {
                await events.waitFor { EventRecordingTests.clips($0).finished.count >= count }
            }

            /// Waits until `duration` of the recording is written: its timeline is at least as far on.
            func waitForRecorded(_ duration: Duration) async -> Bool {
                await eventually { [movie] in movie.recordedDuration >= duration }
            }
        }

        static func clips(_ events: [MovieFileOutput.Event]) -> (started: [String], finished: [RecordingResult]) {
            var started: [String] = [], finished: [RecordingResult] = []
            for event in events {
                if case .didStartEventClip(let path) = event { started.append(path) }
                if case .didFinishEventClip(let result) = event { finished.append(result) }
            }
            return (started, finished)
        }

        /// Each video frame of `path` in presentation order: whether it is a keyframe and its
        /// time in seconds, as ffprobe reads them.
        static func frames(_ path: String) throws -> [(key: Bool, time: Double)] {
            let probe = try run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame,pts_time",
                                            "-of", "csv=p=0", path])
            #expect(probe.status == 0, "ffprobe: \(probe.error)")
            return probe.output.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: ",")
                guard fields.count >= 2, let time = Double(fields[1]) else { return nil }
                return (fields[0] == "1", time)
            }
        }

        /// The first channel of a movie's audio as 16-bit samples, decoded by FFmpeg.
        static func audio(_ path: String) throws -> [Int16] {
            let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-af", "pan=mono|c0=c0", "-f", "s16le", "-"])
            #expect(result.status == 0, "ffmpeg: \(result.error)")
            return SyncChecker.int16Samples(result.outputData)
        }

        /// A clip triggered once 5.5 s are recorded, with 3 s of pre-roll and 1 s of post-roll, starts
        /// at the recording's last IDR at or before the trigger less 3 s and holds every frame
        /// from there through the post-roll, in order; its LPCM audio is the recording's, sample
        /// for sample, from the clip's first picture on; it starts at time 0, is turned as the
        /// recording is, has the orientation track and is locked. The recording holds every frame.
        @Test func aClipReachesBackToTheKeyframeBeforeItsPreRollAndOnThroughItsPostRoll() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            try FileManager.default.createDirectory(atPath: dir.file("events"), withIntermediateDirectories: false)
            let rig = try await Rig(events: dir.file("events"), audio: .lpcm)
            try rig.movie.setVideoRotationAngle(90)
            try await rig.movie.startRecording(to: dir.file("main.mov"))
            #expect(await rig.waitForRecorded(.milliseconds(5500)), "\(rig.movie.recordedDuration) recorded")
            let before = MonotonicClock.now()
            try rig.movie.saveEventClip(preRoll: .seconds(3), postRoll: .seconds(1))
            let after = MonotonicClock.now()
            // Stopped once the clip is finished, its post-roll written.
            #expect(await rig.waitForClips(1), "\(rig.events.all)")
            let events = await rig.stop()
            let (started, finished) = Self.clips(events)
            try #require(started.count == 1 && finished.count == 1, "\(events)")
            let clip = finished[0]
            #expect(clip.isPlayable && clip.error == nil && clip.path == started[0], "\(clip)")
            #expect(clip.path.hasPrefix(dir.file("events") + "/event-"), "\(clip.path)")
            #expect(ExtendedAttribute.value(EventClipSettings.lockAttribute, at: clip.path) == "1")
            let startTime = try #require(events.compactMap { event -> UInt64? in
                if case .didStartRecording(_, let time) = event { return time }
                return nil
            }.first)

            // The recording: every frame once, in order.
            let main = try EventClipTests.drawnFrameNumbers(dir.file("main.mov"))
            let mainNumbers = main.compactMap { $0 }
            #expect(mainNumbers.count == main.count && zip(mainNumbers, mainNumbers.dropFirst()).allSatisfy { $1 == $0 + 1 },
                    "the recording misses or repeats a frame: \(main)")
            // The clip: consecutive frames, from the expected IDR through the post-roll.
            let numbers = try EventClipTests.drawnFrameNumbers(clip.path).compactMap { $0 }
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(numbers)")
            let mainFrames = try Self.frames(dir.file("main.mov"))
            let triggers = [before, after].map { Double($0 - startTime) / 1e9 }
            let expectedStarts = Set(triggers.compactMap { trigger in mainFrames.indices.last { mainFrames[$0].key && mainFrames[$0].time <= trigger - 3 } })
            let first = try #require(numbers.first.flatMap { n in mainNumbers.firstIndex(of: n) })
            #expect(first > 0 && expectedStarts.contains(first), "the clip starts at frame \(first) of the recording; expected \(expectedStarts) for a trigger at \(triggers) s")
            let last = try #require(numbers.last.flatMap { n in mainNumbers.firstIndex(of: n) })
            let postRollEnd = mainFrames.indices.last { mainFrames[$0].time < triggers[0] + 1 } ?? 0
            #expect(last >= postRollEnd && last <= postRollEnd + 8, "the clip ends at frame \(last); the post-roll at \(postRollEnd)")
            let clipFrames = try Self.frames(clip.path)
            #expect(clipFrames.first?.time == 0 && clipFrames.first?.key == true, "\(clipFrames.prefix(3))")
            // Turned as the recording, with its orientation track.
            let info = try MovieInfo(path: clip.path)
            #expect(info.videoTrack?.orientation == (try VideoOrientation(rotationAngle: 90)))
            #expect(info.metadataTracks.count == 1)
            // The audio: the recording's samples from the clip's first picture, each once.
            let mainAudio = try Self.audio(dir.file("main.mov")), clipAudio = try Self.audio(clip.path)
            let offset = Int((mainFrames[first].time * 48_000).rounded())
            #expect(clipAudio.count >= (last - first) * 1600, "\(clipAudio.count) samples for \(last - first + 1) frames")
            let span = min(clipAudio.count, mainAudio.count - offset)
            let lag = (-2...2).first { lag in
                offset + lag >= 0 && Array(mainAudio[(offset + lag)..<(offset + lag + span - 2)]) == Array(clipAudio[0..<(span - 2)])
            }
            #expect(lag == 0, "the clip's audio matches the recording's at \(String(describing: lag)) samples from its first picture")
        }

        /// A trigger right after the start gets what there is (the clip starts with the
        /// recording); a second trigger a second into the post-roll of another makes one clip,
        /// extended from the keyframe at or before the first's pre-roll through the second's
        /// post-roll; AAC audio stays in step, from each clip's first picture to its last.
        @Test func anEarlyTriggerAndASecondTriggerDuringThePostRoll() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            try FileManager.default.createDirectory(atPath: dir.file("events"), withIntermediateDirectories: false)
            let rig = try await Rig(events: dir.file("events"), audio: .aac)
            try await rig.movie.startRecording(to: dir.file("main.mov"))
            try rig.movie.saveEventClip(postRoll: .seconds(1))
            // The next trigger once the early clip is finished and 2 s are recorded: it begins a
            // clip of its own, however long the start took.
            #expect(await rig.waitForClips(1), "\(rig.events.all)")
            #expect(await rig.waitForRecorded(.seconds(2)), "\(rig.movie.recordedDuration) recorded")
            // The two triggers from a thread of their own, a second apart on the recording's clock
            // (the first's post-roll runs 2.5 s): the test's task may wait seconds for a thread of
            // the cooperative pool, a thread of its own wakes on time.
            let triggers = LockedValue<[(before: UInt64, after: UInt64)]>([])
            let refused = LockedValue<[String]>([])
            let triggering = DedicatedThread(name: "test-triggers") { [movie = rig.movie] in
                for (preRoll, postRoll) in [(Duration.seconds(1), Duration.seconds(2.5)), (.seconds(1), .seconds(2))] {
                    if let last = triggers.withLock({ $0.last }) { MonotonicClock.sleep(until: last.before + 1_000_000_000) }
                    let before = MonotonicClock.now()
                    do { try movie.saveEventClip(preRoll: preRoll, postRoll: postRoll) } catch { refused.withLock { $0.append("\(error)") } }
                    let after = MonotonicClock.now()
                    triggers.withLock { $0.append((before, after)) }
                }
            }
            _ = try? await runOnDedicatedThread(name: "test-join") { triggering.join() }
            #expect(refused.withLock { $0 }.isEmpty, "\(refused.withLock { $0 })")
            #expect(await rig.waitForClips(2), "\(rig.events.all)")
            let events = await rig.stop()
            let (started, finished) = Self.clips(events)
            try #require(started.count == 2 && finished.count == 2, "\(events)")
            #expect(finished.allSatisfy { $0.isPlayable && $0.error == nil }, "\(finished)")
            let mainNumbers = try EventClipTests.drawnFrameNumbers(dir.file("main.mov")).compactMap { $0 }
            let early = try EventClipTests.drawnFrameNumbers(finished[0].path).compactMap { $0 }
            #expect(early.first == mainNumbers.first, "the early clip starts with the recording: \(early.prefix(3)) vs \(mainNumbers.prefix(3))")
            #expect(early.count >= 30 && zip(early, early.dropFirst()).allSatisfy { $1 == $0 + 1 })
            // The second clip: each frame once, from the keyframe at or before 1 s ahead of the
            // first trigger through 2 s after the second.
            let extended = try EventClipTests.drawnFrameNumbers(finished[1].path).compactMap { $0 }
            #expect(zip(extended, extended.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(extended)")
            let startTime = try #require(events.compactMap { event -> UInt64? in
                if case .didStartRecording(_, let time) = event { return time }
                return nil
            }.first)
            let times = triggers.withLock { $0 }.map { (Double($0.before - startTime) / 1e9, Double($0.after - startTime) / 1e9) }
            try #require(times.count == 2)
            let mainFrames = try Self.frames(dir.file("main.mov"))
            let expectedStarts = Set([times[0].0, times[0].1].compactMap { trigger in
                mainFrames.indices.last { mainFrames[$0].key && mainFrames[$0].time <= trigger - 1 }
            })
            let first = try #require(extended.first.flatMap { n in mainNumbers.firstIndex(of: n) })
            #expect(expectedStarts.contains(first), "the clip starts at frame \(first); expected \(expectedStarts) for a trigger at \(times[0]) s")
            let last = try #require(extended.last.flatMap { n in mainNumbers.firstIndex(of: n) })
            let postRollEnd = mainFrames.indices.last { mainFrames[$0].time < times[1].0 + 2 } ?? 0
            #expect(last >= postRollEnd && last <= postRollEnd + 8, "the clip ends at frame \(last); the second post-roll at \(postRollEnd)")
            // Each clip's AAC starts with its first picture (no empty edit) and lasts as long.
            for clip in finished {
                let streams = try ffprobeStreams(clip.path).filter { $0.codec_type != "data" }
                let starts = streams.map(\.start_time), durations = streams.compactMap { $0.duration.flatMap(Double.init) }
                #expect(starts == ["0.000000", "0.000000"] && durations.count == 2 && abs(durations[0] - durations[1]) <= 1024.0 / 48_000,
                        "\(clip.path): start times \(starts), durations \(durations)")
            }
            // AAC: the clip's decoded audio lines up with the recording's (the tone's phase).
            let mainAudio = try Self.audio(dir.file("main.mov")).map(Double.init)
            let clipAudio = try Self.audio(finished[1].path).map(Double.init)
            let start = try #require(mainNumbers.firstIndex(of: extended[0]))
            let offset = Int((mainFrames[start].time * 48_000).rounded())
            func error(_ lag: Int) -> Double {
                let range = 4800..<48_000
                return range.reduce(0) { sum, i in
                    let d = clipAudio[i] - mainAudio[offset + lag + i]
                    return sum + d * d
                } / Double(range.count)
            }
            let errors = (-3...3).map { ($0, error($0)) }
            let best = errors.min { $0.1 < $1.1 }!
            #expect(best.0 == 0 && best.1 < 1e5, "the clip's AAC is \(best.0) samples off the recording's: \(errors)")
        }

        /// A bump replayed through an IIO fixture tree, its axes written at different instants,
        /// saves a clip through an `ImpactDetector` at 2.5 g with the bump's whole size; a nudge
        /// of 1.2 g does not.
        @Test func aBumpSavesAClipAndANudgeDoesNot() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            try FileManager.default.createDirectory(atPath: dir.file("events"), withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: fixture("iio/bump/iio:device0"), toPath: dir.file("iio:device0"))
            let accelerometer = try IIOAccelerometer(path: dir.file("iio:device0"), pollingInterval: .milliseconds(10))
            let detector = ImpactDetector(source: accelerometer, threshold: 2.5)
            let rig = try await Rig(events: dir.file("events"), audio: nil)
            let impacts = LockedValue<[ImpactDetector.Impact]>([])
            try detector.start { [movie = rig.movie] impact in
                impacts.withLock { $0.append(impact) }
                try? movie.saveEventClip(preRoll: .seconds(1), postRoll: .milliseconds(500))
            }
            try await rig.movie.startRecording(to: dir.file("main.mov"))
            try await Task.sleep(for: .milliseconds(1500))
            try await Self.replay(fixture("iio/bump/replay-nudge"), into: dir.file("iio:device0"))
            try await Task.sleep(for: .milliseconds(500))
            #expect(impacts.withLock { $0.isEmpty }, "a nudge of 1.2 g is no impact")
            try await Self.replay(fixture("iio/bump/replay-bump"), into: dir.file("iio:device0"))
            #expect(await eventually(deadline: .seconds(10)) { impacts.withLock { !$0.isEmpty } })
            try await Task.sleep(for: .milliseconds(1500))
            detector.stop()
            let events = await rig.stop()
            let change = impacts.withLock { $0.map(\.change) }
            #expect(change.count == 1 && change[0] > 3.0 && change[0] < 3.6, "one impact of 3.3 g (the hold-off hides the rebound): \(change)")
            let (started, finished) = Self.clips(events)
            #expect(started.count == 1 && finished.count == 1 && finished.first?.isPlayable == true, "\(events)")
            #expect((finished.first?.frameCount ?? 0) >= 40, "\(finished)")
        }

        /// Writes each line of `replay` (raw x y z) into the tree's raw files, each put in place
        /// whole, an axis at a time 0–8 ms apart as a driver updates them (so a poll may read a
        /// line torn), then held 100 ms: ten polls of each reading, so a polling thread that a
        /// loaded machine wakes late still reads every line whole.
        static func replay(_ replay: String, into device: String) async throws {
            var random = SystemRandomNumberGenerator()
            for line in try String(contentsOfFile: replay, encoding: .utf8).split(separator: "\n") {
                for (axis, value) in zip(["x", "y", "z"], line.split(separator: " ")) {
                    let path = device + "/in_accel_\(axis)_raw"
                    try (value + "\n").write(toFile: path + ".new", atomically: false, encoding: .utf8)
                    guard rename(path + ".new", path) == 0 else { throw POSIXError(.EIO) }
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...8, using: &random)))
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        /// `movrec record` saves a clip at SIGUSR1 and prints its path; killed during the
        /// post-roll, the clip repairs into a movie whose frames are consecutive and decode.
        @Test func aClipKilledDuringItsPostRollRepairs() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            try FileManager.default.createDirectory(atPath: dir.file("events"), withIntermediateDirectories: false)
            let movrec = try RunningProgram(try movrecPath(), [
                "record", dir.file("main.mov"), "--video", "testsrc", "--size", "\(Self.width)x\(Self.height)", "--audio", "tone",
                "--event-directory", dir.file("events"), "--event-pre", "2", "--event-post", "30", "--fragment-interval", "0.5", "--quiet"])
            defer { movrec.killIfRunning() }
            // Signalled once three seconds are on the disk (a SIGUSR1 before movrec has set its
            // handler is the inherited disposition's: a test runner may ignore it).
            #expect(await movrec.waitForError(containing: "movrec: recording to"), "movrec did not start: \(movrec.error)")
            #expect(await eventually { wholeFragmentCount(dir.file("main.mov")) >= 6 }, "\(wholeFragmentCount(dir.file("main.mov"))) fragments")
            movrec.send(SIGUSR1)
            let prefix = "movrec: saving an event clip to "
            #expect(await movrec.waitForError(containing: prefix), "no clip line: \(movrec.error)")
            let path = try #require(movrec.error.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
            // Killed during the post-roll once the clip holds its pre-roll and more, six fragments
            // of half a second whole on the disk.
            #expect(await eventually { wholeFragmentCount(path) >= 6 }, "\(wholeFragmentCount(path)) fragments in the clip")
            movrec.killIfRunning()
            let repaired = dir.file("repaired.mov")
            let repair = try run(movrecPath(), ["repair", path, "--output", repaired])
            #expect(repair.status == 0, "\(repair.output)\(repair.error)")
            let decoded = try decodeAllFrames(repaired)
            #expect(decoded.errors.isEmpty && decoded.videoFrames >= 60, "\(decoded)")
            let numbers = try EventClipTests.drawnFrameNumbers(repaired).compactMap { $0 }
            #expect(numbers.count == decoded.videoFrames && zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(numbers)")
            #expect(try ffprobeStreams(repaired).map(\.codec_type) == ["video", "audio", "data"])
        }

        /// The clips' byte budget deletes the oldest clips in the directory once a clip is
        /// finished, never the newest nor a file that is not a clip; without a recording, or
        /// without settings, saving a clip is an error that says what to do.
        @Test func theClipsBudgetDeletesTheOldestClipsOnly() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let events = dir.file("events")
            try FileManager.default.createDirectory(atPath: events, withIntermediateDirectories: false)
            let old = ["event-20200101-000000.mov", "event-20200101-000001.mov"], other = "notes.mov"
            for name in old + [other] {
                #expect(FileManager.default.createFile(atPath: events + "/" + name, contents: Data(count: 400_000)))
            }
            let rig = try await Rig(events: events, audio: nil) { movie in
                movie.eventClipSettings?.maximumTotalSize = 700_000
            }
            do {
                try rig.movie.saveEventClip()
                Issue.record("saving a clip before recording is an error")
            } catch {
                #expect(error.code == .notConnected && error.message.contains("nothing is recording"), "\(error)")
            }
            try await rig.movie.startRecording(to: dir.file("main.mov"))
            #expect(throws: RecordingError.self) { try rig.movie.saveEventClip(postRoll: .seconds(-1)) }
            #expect(await rig.waitForRecorded(.seconds(1)), "\(rig.movie.recordedDuration) recorded")
            try rig.movie.saveEventClip(preRoll: .seconds(1), postRoll: .milliseconds(500))
            // Stopped once the clip is finished: the budget is kept as each clip finishes.
            #expect(await rig.waitForClips(1), "\(rig.events.all)")
            let (_, finished) = Self.clips(await rig.stop())
            let left = Set(try FileManager.default.contentsOfDirectory(atPath: events))
            let saved = try #require(finished.first?.path.split(separator: "/").last.map(String.init))
            // 2 × 400 kB of old clips and the new one (well under 300 kB) over 700 kB: the oldest goes.
            #expect((finished.first?.fileSize ?? .max) < 300_000, "\(finished)")
            #expect(left == [old[1], other, saved], "the oldest clip goes, the budget counts only clips: \(left)")

            let plain = MovieFileOutput()
            let session = CaptureSession()
            try await session.configure { config in
                try config.addInput(try TestPatternSource(width: 160, height: 120, frameRate: FrameRate(frames: 30)))
                try config.addOutput(plain)
            }
            try await session.startRunning()
            try await plain.startRecording(to: dir.file("plain.mov"))
            #expect { try plain.saveEventClip() } throws: { error in
                (error as? RecordingError)?.code == .invalidSettings && "\(error)".contains("no eventClipSettings")
            }
            _ = await plain.stopRecording()
            await session.stopRunning()
        }

        /// Retention over 200 segments of 0.1 s, keeping 3, while clips are saved every 2 s:
        /// it deletes no segment finished after a clip began until that clip is finished, never
        /// a clip, and catches up afterwards. Every event counts, so the rig reads them on a
        /// thread of its own: a reader on a busy cooperative pool fell behind the 30 a second and
        /// the stream kept only the newest 64.
        @Test func retentionKeepsWhatAClipNeedsAndNeverAClip() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            try FileManager.default.createDirectory(atPath: dir.file("events"), withIntermediateDirectories: false)
            let rig = try await Rig(events: dir.file("events"), audio: nil) { movie in
                movie.segmentDuration = .milliseconds(100)
                movie.maximumSegmentCount = 3
            }
            try await rig.movie.startRecording(toSegments: try SegmentFileNames(pattern: dir.file("loop-%04d.mov")))
            for _ in 0..<10 {
                try await Task.sleep(for: .seconds(2))
                try rig.movie.saveEventClip(preRoll: .seconds(1), postRoll: .seconds(1))
            }
            // Stopped once the last clip is finished.
            #expect(await rig.waitForClips(10), "\(Self.clips(rig.events.all).finished.count) clips finished")
            let events = await rig.stop()
            var finishedSegments = 0
            var open: [String: Set<String>] = [:]  // each clip in progress: the segments finished since it began
            var violations: [String] = []
            var deleted = 0
            for event in events {
                switch event {
                case .didStartEventClip(let path): open[path] = []
                case .didFinishSegment(let result):
                    finishedSegments += 1
                    for clip in open.keys { open[clip]!.insert(result.path) }
                case .didDeleteSegment(let path):
                    deleted += 1
                    if path.contains("/events/") { violations.append("deleted the clip \(path)") }
                    for (clip, needed) in open where needed.contains(path) { violations.append("deleted \(path) while \(clip) needed it") }
                case .didFinishEventClip(let result): open[result.path] = nil
                default: break
                }
            }
            #expect(finishedSegments >= 190, "\(finishedSegments) segments")
            #expect(violations.isEmpty, "\(violations)")
            #expect(deleted >= finishedSegments - 3, "retention caught up: \(deleted) of \(finishedSegments + 1) deleted")
            let (started, finished) = Self.clips(events)
            #expect(started.count == 10 && finished.count == 10 && finished.allSatisfy(\.isPlayable), "\(finished)")
            let clips = try FileManager.default.contentsOfDirectory(atPath: dir.file("events"))
            #expect(clips.count == 10, "\(clips)")
            let loops = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("loop-") }
            #expect(loops.count == 3, "\(loops)")
        }
    }
}
