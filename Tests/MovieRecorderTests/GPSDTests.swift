import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieRecorder

extension RealTimeMetadataTestGroup {
    /// The location track from a real gpsd: `gpsfake` replays `Fixtures/drive.nmea` through gpsd
    /// on a port of the test's, one fix a second, while `movrec record --gps` records; gpsd is
    /// stopped and started again in the middle.
    @Suite(.serialized) struct GPSDTests {
        /// One second of the log: the position and altitude the receiver gave.
        struct LoggedFix {
            var latitude: Double
            var longitude: Double
            var altitude: Double
        }

        /// The log's fixes by their UTC time (`2026-06-01T12:00:05.000Z`), from its `$GPGGA`
        /// sentences: degrees and minutes turned into degrees as gpsd does.
        static func loggedFixes() throws -> [String: LoggedFix] {
            let text = try String(contentsOfFile: fixture("drive.nmea"), encoding: .utf8)
            var fixes: [String: LoggedFix] = [:]
            for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("$GPGGA") {
                let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                func degrees(_ value: String, _ width: Int) -> Double {
                    Double(value.prefix(width))! + Double(value.dropFirst(width))! / 60
                }
                let time = "2026-06-01T\(f[1].prefix(2)):\(f[1].dropFirst(2).prefix(2)):\(f[1].dropFirst(4).prefix(2)).000Z"
                fixes[time] = LoggedFix(latitude: degrees(f[2], 2) * (f[3] == "S" ? -1 : 1),
                                        longitude: degrees(f[4], 3) * (f[5] == "W" ? -1 : 1), altitude: Double(f[9])!)
            }
            return fixes
        }

        /// A port no one listens on, for this run.
        static let port = UInt16(29_000 + Int(getpid()) % 1000)

        /// `gpsfake` replaying the drive once through its own gpsd on `port`, one fix a second.
        final class Replay {
            let process = Process()

            init(port: UInt16) throws {
                // The test process's threads block signals, and a child inherits the mask: unblock
                // them before gpsfake runs, or its SIGTERM would never arrive.
                let arguments = [try toolPath("gpsfake"), "-1", "-p", "-q", "-c", "0.5", "-P", String(port), fixture("drive.nmea")]
                process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
                process.arguments = ["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"]
                    + arguments
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
            }

            /// Stops gpsfake and its gpsd (SIGTERM; both are gone within about two seconds), or kills
            /// gpsfake after five.
            func stop() {
                process.terminate()
                for _ in 0..<50 where process.isRunning { usleep(100_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            }
        }

        @Test func aRecordingFollowsGPSDThroughAStopAndARestart() async throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let logged = try Self.loggedFixes()
            let path = dir.file("drive.mov")
            var replay = try Replay(port: Self.port)
            let recorder = try RunningProgram(try movrecPath(), [
                "record", path, "--video", "testsrc", "--size", "160x120", "--fps", "30", "--duration", "24",
                "--gps", "127.0.0.1:\(Self.port)", "--quiet"])
            defer { recorder.killIfRunning() }
            // gpsd goes away 10 s into the recording, however long movrec took to start.
            #expect(await recorder.waitForError(containing: "movrec: recording to"), "movrec did not start: \(recorder.error)")
            try await Task.sleep(for: .seconds(10))
            replay.stop()
            try await Task.sleep(for: .seconds(4))
            replay = try Replay(port: Self.port)
            defer { replay.stop() }
            #expect(await recorder.waitForExit(), "movrec goes on past its duration")
            recorder.killIfRunning()
            #expect(recorder.process.terminationStatus == 0, "movrec: \(recorder.error)")

            // Every frame: the recording never waited for gpsd.
            let decoded = try decodeAllFrames(path)
            #expect(decoded.videoFrames == 24 * 30 && decoded.errors.isEmpty, "\(decoded)")

            let file = try RandomAccessFile(path: path, mode: .read)
            defer { try? file.close() }
            let info = try MovieInfo(source: file)
            let track = try #require(info.metadataTracks.first { $0.metadataKeys?.contains(.locationISO6709) == true })
            let samples = try info.timedMetadataSamples(of: track, in: file)
            let gaps = samples.indices.filter { samples[$0].items.isEmpty }
            try #require(gaps.count == 1, "one gap where gpsd was gone: \(samples.map(\.items.count))")
            let runs = [samples[..<gaps[0]], samples[(gaps[0] + 1)...]]
            for (index, run) in runs.enumerated() {
                #expect(run.count >= 5, "run \(index): \(run.count) fixes")
                guard case .string(let firstDate)? = run.first?.value(of: .locationDate) else {
                    Issue.record("run \(index) has no fix time")
                    continue
                }
                for sample in run {
                    guard case .string(let date)? = sample.value(of: .locationDate), let fix = logged[date],
                          case .string(let iso)? = sample.value(of: .locationISO6709) else {
                        Issue.record("a sample at \(sample.time) s is not a fix of the log: \(sample.items)")
                        continue
                    }
                    // Exact to the six decimals written; the altitude when the fix was 3D.
                    let plain = MetadataItem.iso6709(latitude: fix.latitude, longitude: fix.longitude, fractionDigits: 6)!
                    let withAltitude = MetadataItem.iso6709(latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude,
                                                            fractionDigits: 6)!
                    #expect(iso == plain || iso == withAltitude, "\(date): \(iso), the log \(withAltitude)")
                    // In time: as far from the run's first fix in the movie as in the log, within a second.
                    let logSeconds = Self.seconds(date) - Self.seconds(firstDate)
                    let movieSeconds = sample.time - run.first!.time
                    #expect(abs(movieSeconds - logSeconds) <= 1, "\(date) at \(sample.time) s: \(movieSeconds) s into the run, the log \(logSeconds)")
                }
            }
            #expect(info.metadata.contains { $0.key == MetadataItem.QuickTimeKey.locationISO6709 }, "the first fix is the movie's location")
            let gap = samples[gaps[0]]
            #expect(gap.time > 9 && gap.time < 15, "the gap starts at \(gap.time) s")
            let resumed = samples[gaps[0] + 1].time
            print("gpsd: \(runs[0].count) fixes from \(String(format: "%.3f", runs[0].first!.time)) s, gap at \(String(format: "%.3f", gap.time)) s (gpsd stopped at about 10 s), \(runs[1].count) fixes from \(String(format: "%.3f", resumed)) s (restarted at about 14 s); \(decoded.videoFrames) frames of \(24 * 30)")

            // exiftool lists the same coordinates, sample by sample.
            let fixes = samples.filter { !$0.items.isEmpty }
            let exif = try run("exiftool", ["-ee", "-n", "-G3", "-s", "-GPSCoordinates", path])
            let listed = exif.output.split(separator: "\n").filter { $0.hasPrefix("[Doc") }
                .map { $0.split(separator: ":").last!.split(separator: " ").compactMap { Double($0) } }
            #expect(listed.count == fixes.count, "exiftool: \(exif.output)")
            for (row, sample) in zip(listed, fixes) {
                guard case .string(let iso)? = sample.value(of: .locationISO6709), let position = GPXDocument.parseISO6709(iso) else { continue }
                #expect(row.count >= 2 && abs(row[0] - position.latitude) < 1e-9 && abs(row[1] - position.longitude) < 1e-9,
                        "exiftool \(row), the movie \(iso)")
            }

            // The GPX export validates against the GPX 1.1 schema and holds every fix at its time.
            let gpx = try run(movrecPath(), ["inspect", "--gpx", path])
            #expect(gpx.status == 0)
            try gpx.outputData.write(to: URL(fileURLWithPath: dir.file("drive.gpx")))
            let valid = try run(toolPath("xmllint"), ["--noout", "--schema", try RecordedMetadataTests().gpxSchema(in: dir), dir.file("drive.gpx")])
            #expect(valid.status == 0, "xmllint: \(valid.error)")
            let points = GPXDocument(samples: samples, creationTime: info.movieHeader.creationTime).points
            #expect(points.count == fixes.count)
            for point in points {
                let fix = try #require(logged[point.time], "a point at \(point.time), which the log does not have")
                #expect(abs(point.latitude - fix.latitude) < 5e-7 && abs(point.longitude - fix.longitude) < 5e-7, "\(point) against \(fix)")
                #expect(gpx.output.contains("<time>\(point.time)</time>"))
            }
        }

        /// Seconds into the day of a fix time such as `2026-06-01T12:00:05.000Z`.
        static func seconds(_ date: String) -> Double {
            let clock = date.split(separator: "T")[1].dropLast().split(separator: ":").map { Double($0)! }
            return clock[0] * 3600 + clock[1] * 60 + clock[2]
        }

        @Test func noDaemonIsAClearStateAndStoppingDoesNotWait() async throws {
            let source = GPSDLocationSource(host: "127.0.0.1", port: Self.port &+ 1)
            let events = LockedValue<[LocationEvent]>([])
            source.start { event in events.withLock { $0.append(event) } }
            for _ in 0..<50 where events.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(100)) }
            guard case .unavailable(let reason) = source.state else {
                Issue.record("state \(source.state)")
                source.stop()
                return
            }
            #expect(reason.contains("127.0.0.1:\(Self.port &+ 1)") && reason.contains("refused"), "\(reason)")
            let started = MonotonicClock.now()
            source.stop()
            #expect(MonotonicClock.now() - started < 500_000_000, "stop waited for the reconnection")
            #expect(source.state == .stopped)
            #expect(events.withLock { $0.count } == 1, "the loss is reported once")
        }

        /// Lines a broken or hostile daemon might send: none is a fix, and none crashes.
        @Test func hostileLinesAreNotFixes() {
            let lines = [
                "", "{", "[]", #"{"class":"TPV"}"#, #"{"class":"TPV","mode":1,"lat":1,"lon":2}"#,
                #"{"class":"TPV","mode":3,"lat":"52","lon":13}"#, #"{"class":"TPV","mode":3,"lat":52,"lon":13,}"#,
                String(repeating: "[", count: 10_000), #"{"class":"TPV","mode":3,"lat":52,"lon":13"#,
                #"{"class":"TPV\u0000","mode":3,"lat":52,"lon":13}"#, #"{"class":"TPV","mode":3,"lat":1e999,"lon":13}"#,
            ]
            for line in lines {
                let fix = GPSDMessage(line: line)?.fix(capturedAt: 0)
                #expect(fix == nil, "\(line.prefix(80)) gave \(String(describing: fix))")
            }
            let good = GPSDMessage(line: #"{"class":"TPV","mode":3,"time":"2026-06-01T12:00:00.000Z","lat":52.52,"lon":13.405,"altMSL":34.0,"speed":1.5,"track":90.0,"eph":17.1}"#)
            #expect(good?.fix(capturedAt: 7) == LocationFix(latitude: 52.52, longitude: 13.405, altitude: 34, speed: 1.5, course: 90,
                                                            horizontalAccuracy: 17.1, time: "2026-06-01T12:00:00.000Z", captureTime: 7))
        }
    }
}
