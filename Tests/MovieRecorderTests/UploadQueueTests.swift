import Foundation
import Testing
import MovieNetwork
import MovieRecorder
import MoviePlatform

extension LiveViewTestGroup {
    /// The upload queue against a real S3 server on loopback (moto), read back with boto3:
    /// recordings arrive whole while recording, clips first, a killed upload resumes without
    /// sending a part twice, faults on the way lose nothing, wrong credentials are named, and
    /// retention keeps what is not stored. In the live view's group, which runs alone: the
    /// recordings beside the uploads must drop no frame.
    @Suite(.serialized) struct UploadQueueTests {
        /// Runs movrec with the server's credentials in its environment (never on its command line).
        func movrec(_ arguments: [String], _ server: S3TestServer) throws -> RunningProgram {
            try RunningProgram(try movrecPath(), arguments, environment: server.environment)
        }

        /// A directory `rec` in `directory` holding `name`, recorded by movrec from the test
        /// pattern (at `bitrate` kbit/s when given, for a file of several parts).
        func makeRecordings(in directory: TemporaryDirectory, movie name: String? = nil, size: String = "320x240", seconds: Int = 2,
                            bitrate: Int? = nil) throws -> String {
            let recordings = directory.file("rec")
            try FileManager.default.createDirectory(atPath: recordings, withIntermediateDirectories: true)
            guard let name else { return recordings }
            let made = try run(movrecPath(), ["record", recordings + "/" + name, "--video", "testsrc", "--size", size, "--duration", String(seconds),
                                              "--quiet"] + (bitrate.map { ["--bitrate", String($0)] } ?? []))
            try #require(made.status == 0, "\(made.error)")
            return recordings
        }

        /// Each named file's bytes equal the object under `prefix` + its name.
        func expectStored(_ files: [String: String], in objects: [String: String], prefix: String) {
            for (name, sum) in files {
                #expect(objects[prefix + name] == sum, "\(name): stored \(objects[prefix + name] ?? "nothing"), file \(sum)")
            }
        }

        /// A 30 s segmented recording with two event clips and photos: every finished file
        /// becomes one object, its bytes the file's, its key from the template.
        @Test func aSegmentedRecordingArrivesWhileItRecords() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let server = try await S3TestServer.start(in: directory)
            defer { server.stop() }
            let recordings = directory.file("rec")
            try FileManager.default.createDirectory(atPath: recordings + "/events", withIntermediateDirectories: true)
            let program = try movrec(["record", recordings + "/seg-%03d.mov", "--video", "testsrc", "--size", "640x360", "--audio", "tone",
                                      "--segment-duration", "5", "--duration", "30", "--event-directory", recordings + "/events",
                                      "--event-pre", "2", "--event-post", "2", "--photo-every", "7",
                                      "--upload", "s3://recordings/fleet", "--upload-endpoint", server.endpoint,
                                      "--upload-key", "{prefix}{device}/{kind}/{name}"], server)
            defer { program.killIfRunning() }
            #expect(await program.waitForError(containing: "stored fleet/"), "nothing stored while recording: \(program.error.suffix(500))")
            for _ in 0..<2 {
                program.send(SIGUSR1)
                #expect(await program.waitForError(containing: "event clip"), "\(program.error.suffix(300))")
            }
            #expect(await program.waitForExit(deadline: .seconds(180)), "movrec did not finish its queue")
            program.killIfRunning()
            #expect(program.process.terminationStatus == 0 && !program.output.contains("dropped"), "\(program.output) \(program.error.suffix(800))")
            let device = HostName.current
            let (objects, unfinished) = try server.contents()
            let segments = try sha256OfFiles(in: recordings) { $0.hasSuffix(".mov") }
            let photos = try sha256OfFiles(in: recordings) { $0.hasSuffix(".jpg") }
            let clips = try sha256OfFiles(in: recordings + "/events")
            #expect(segments.count >= 6 && clips.count >= 1 && photos.count >= 3, "\(segments.keys) \(clips.keys) \(photos.keys)")
            expectStored(segments, in: objects, prefix: "fleet/\(device)/recordings/")
            expectStored(clips, in: objects, prefix: "fleet/\(device)/clips/")
            expectStored(photos, in: objects, prefix: "fleet/\(device)/photos/")
            #expect(objects.count == segments.count + clips.count + photos.count && unfinished.isEmpty, "\(objects.keys.sorted()) \(unfinished)")
        }

        /// `movrec upload` on a directory of recordings: event clips are sent before the
        /// recordings, and a second run sends nothing.
        @Test func clipsGoFirstAndNothingIsSentTwice() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let server = try await S3TestServer.start(in: directory)
            defer { server.stop() }
            let recordings = try makeRecordings(in: directory, movie: "seg-001.mov")
            for name in ["seg-002.mov", "seg-003.mov", "event-20261205-120000.mov", "event-20261205-120100.mov"] {
                try FileManager.default.copyItem(atPath: recordings + "/seg-001.mov", toPath: recordings + "/" + name)
            }
            try Data("not a movie".utf8).write(to: URL(fileURLWithPath: recordings + "/notes.mov"))
            let arguments = ["upload", recordings, "s3://recordings/", "--upload-endpoint", server.endpoint, "--upload-key", "{name}"]
            let first = try run(movrecPath(), arguments, environment: server.environment)
            #expect(first.status == 0, "\(first.error)")
            let puts = server.requests().filter { $0.method == "PUT" }.map { String($0.path.split(separator: "/").last!) }
            #expect(puts.count == 5 && puts.prefix(2).allSatisfy { $0.hasPrefix("event-") }, "order of PUTs: \(puts)")
            let second = try run(movrecPath(), arguments, environment: server.environment)
            #expect(second.status == 0 && second.error.contains("0 finished recordings"), "\(second.error)")
            #expect(server.requests().filter { $0.method == "PUT" }.count == 5, "the second run sent again")
            let (objects, _) = try server.contents()
            expectStored(try sha256OfFiles(in: recordings) { $0 != "notes.mov" }, in: objects, prefix: "")
            #expect(objects["notes.mov"] == nil, "a file that is not a finished movie was uploaded")
            // As if killed between storing the object and noting it: the record says "begun",
            // and the next run finds the object complete (HEAD) instead of sending it again.
            let file = try #require(try RandomAccessFile(path: recordings + "/seg-002.mov", mode: .read).sizeAndModification)
            let record = "v2\tbegun\t\(server.endpoint)/recordings\tseg-002.mov\t-\t\(file.size)\t\(file.modified)"
            #expect(ExtendedAttribute.set("user.movierecorder.upload", to: record, at: recordings + "/seg-002.mov"))
            let third = try run(movrecPath(), arguments, environment: server.environment)
            #expect(third.status == 0 && third.error.contains("seg-002.mov was stored already"), "\(third.error)")
            #expect(server.requests().filter { $0.method == "PUT" }.count == 5 && server.requests().last?.method == "HEAD", "sent again")
            // A file replaced under its name (its inode and record kept, new bytes and time) is
            // not taken for stored.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: recordings + "/seg-001.mov"))
            let handle = try #require(FileHandle(forWritingAtPath: recordings + "/seg-003.mov"))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: bytes)
            try handle.close()
            let fourth = try run(movrecPath(), arguments, environment: server.environment)
            #expect(fourth.status == 0 && server.requests().filter { $0.method == "PUT" }.count == 6, "\(fourth.error)")
        }

        /// SIGKILL in the middle of a throttled multipart upload, then `movrec upload` again: the
        /// object completes with the file's bytes, no part stored before the kill is sent
        /// again, and no unfinished upload is left.
        @Test func aKilledMultipartUploadResumesWithoutSendingAPartTwice() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let server = try await S3TestServer.start(in: directory)
            defer { server.stop() }
            let recordings = try makeRecordings(in: directory, movie: "big.mov", size: "1280x720", seconds: 8, bitrate: 30000)
            let arguments = ["upload", recordings, "s3://recordings/", "--upload-endpoint", server.endpoint, "--upload-key", "{name}",
                             "--upload-part-size", "5M"]
            let killed = try movrec(arguments + ["--upload-rate", "2M"], server)
            defer { killed.killIfRunning() }
            let partStored = await eventually { server.requests().contains { $0.method == "PUT" && $0.query["partNumber"] == "1" && $0.status == 200 } }
            #expect(partStored, "part 1 was never stored: \(killed.error.suffix(300))")
            killed.send(SIGKILL)
            killed.killIfRunning()
            let before = server.requests().filter { $0.method == "PUT" && $0.status == 200 }.compactMap { $0.query["partNumber"] }
            let resumed = try run(movrecPath(), arguments, environment: server.environment)
            #expect(resumed.status == 0 && resumed.error.contains("kept from before"), "\(resumed.error)")
            let stored = server.requests().filter { $0.method == "PUT" && $0.status == 200 }.compactMap { $0.query["partNumber"] }
            #expect(Set(stored) == ["1", "2", "3"] && stored.count == 3, "parts stored \(stored), \(before) before the kill")
            #expect(server.requests().filter { $0.method == "POST" && $0.query["uploads"] != nil }.count == 1, "a second upload was begun")
            let (objects, unfinished) = try server.contents()
            #expect(objects["big.mov"] == (try sha256OfFiles(in: recordings))["big.mov"] && unfinished.isEmpty, "\(objects) \(unfinished)")
        }

        /// A file changed while its part is being sent (moto checks no Content-MD5, so the
        /// queue's own check of the part's ETag catches it): the upload is abandoned and
        /// reported, no object or unfinished upload is left, and a later run stores the file as
        /// it now is.
        @Test func aFileChangedUnderTheQueueIsRefusedByItsChecksum() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let server = try await S3TestServer.start(in: directory)
            defer { server.stop() }
            let recordings = try makeRecordings(in: directory, movie: "big.mov", size: "1280x720", seconds: 8, bitrate: 30000)
            let arguments = ["upload", recordings, "s3://recordings/", "--upload-endpoint", server.endpoint, "--upload-key", "{name}",
                             "--upload-part-size", "5M"]
            let first = try movrec(arguments + ["--upload-rate", "1M"], server)
            defer { first.killIfRunning() }
            #expect(await eventually { server.requests().contains { $0.method == "POST" && $0.query["uploads"] != nil } }, "\(first.error)")
            // Part 1 (5 MB at half of 1 MB/s) is still on its way: change a byte it has not sent yet.
            let handle = try #require(FileHandle(forUpdatingAtPath: recordings + "/big.mov"))
            try handle.seek(toOffset: 4_000_000)
            let old = try #require(try handle.read(upToCount: 1)).first!
            try handle.seek(toOffset: 4_000_000)
            try handle.write(contentsOf: Data([old ^ 0xFF]))
            try handle.close()
            #expect(await first.waitForExit(deadline: .seconds(120)), "\(first.error.suffix(300))")
            first.killIfRunning()
            #expect(first.process.terminationStatus == 1 && first.error.contains("changed while it was sent"), "\(first.error)")
            var (objects, unfinished) = try server.contents()
            #expect(objects.isEmpty && unfinished.isEmpty, "left behind: \(objects.keys) \(unfinished)")
            let second = try run(movrecPath(), arguments, environment: server.environment)
            #expect(second.status == 0, "\(second.error)")
            (objects, unfinished) = try server.contents()
            #expect(objects["big.mov"] == (try sha256OfFiles(in: recordings))["big.mov"] && unfinished.isEmpty, "\(objects) \(unfinished)")
        }

        /// Through a proxy that resets connections mid-part, stalls one and answers 503
        /// SlowDown three times, a recording's files all arrive intact, and it drops no frame.
        @Test func faultsOnTheWayLoseNothing() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let server = try await S3TestServer.start(in: directory)
            defer { server.stop() }
            let proxy = try await FaultProxy.start(to: server, ["--reset-after-bytes", "1000000", "--resets", "2", "--stalls", "1",
                                                                "--stall-after-bytes", "100000", "--stall-seconds", "8", "--slowdown", "3"])
            defer { proxy.stop() }
            let recordings = try makeRecordings(in: directory)
            let program = try movrec(["record", recordings + "/seg-%03d.mov", "--video", "testsrc", "--size", "1280x720", "--bitrate", "8000",
                                      "--audio", "tone", "--segment-duration", "4", "--duration", "20", "--upload", "s3://recordings/",
                                      "--upload-key", "{name}", "--upload-endpoint", proxy.endpoint, "--upload-timeout", "2"], server)
            defer { program.killIfRunning() }
            #expect(await program.waitForExit(deadline: .seconds(240)), "movrec did not finish its queue: \(program.error.suffix(500))")
            program.killIfRunning()
            #expect(program.process.terminationStatus == 0 && !program.output.contains("dropped"), "\(program.output) \(program.error.suffix(800))")
            let faults = proxy.faults
            #expect(faults.filter { $0.contains("reset") }.count == 2 && faults.contains { $0.contains("stall") }
                    && faults.filter { $0.contains("slowdown") }.count == 3, "faults applied: \(faults)")
            #expect(program.error.contains("SlowDown"), "the 503 was not reported: \(program.error.suffix(500))")
            let (objects, unfinished) = try server.contents()
            let files = try sha256OfFiles(in: recordings)
            #expect(files.count >= 5 && objects.count == files.count && unfinished.isEmpty, "\(files.keys.sorted()) \(objects.keys.sorted())")
            expectStored(files, in: objects, prefix: "")
        }

        /// With moto checking credentials: the right key stores, a wrong secret is refused with
        /// a message naming the bucket and the server's answer, and no file is deleted.
        @Test func wrongCredentialsAreNamedAndNothingIsDeleted() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let server = try await S3TestServer.start(in: directory, auth: true)
            defer { server.stop() }
            let recordings = try makeRecordings(in: directory, movie: "a.mov", seconds: 1)
            let arguments = ["upload", recordings, "s3://recordings/wrong", "--upload-endpoint", server.endpoint, "--delete-after-upload", "--quiet"]
            var wrong = server.environment
            wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret-0123456789"
            let refused = try run(movrecPath(), arguments, environment: wrong)
            #expect(refused.status == 1 && refused.error.contains("s3://recordings/wrong") && refused.error.contains("SignatureDoesNotMatch"),
                    "\(refused.error)")
            #expect(!refused.error.contains("not-the-secret") && FileManager.default.fileExists(atPath: recordings + "/a.mov"))
            let accepted = try run(movrecPath(), ["upload", recordings, "s3://recordings/right", "--upload-endpoint", server.endpoint,
                                                  "--upload-key", "{prefix}{name}", "--delete-after-upload"], environment: server.environment)
            #expect(accepted.status == 0 && accepted.error.contains("deleted \(recordings)/a.mov, stored"), "the right key was refused: \(accepted.error)")
            #expect(!FileManager.default.fileExists(atPath: recordings + "/a.mov"), "--delete-after-upload kept the file")
            #expect(try server.contents().objects["right/a.mov"] != nil, "the object is not there")
        }

        /// A bucket that does not exist yet: each attempt is reported with the server's
        /// `NoSuchBucket` and retried with back-off, and the file arrives once it is created.
        @Test func aMissingBucketIsWaitedFor() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let server = try await S3TestServer.start(in: directory)
            defer { server.stop() }
            let recordings = try makeRecordings(in: directory, movie: "a.mov", seconds: 1)
            let program = try movrec(["upload", recordings, "s3://later-bucket/", "--upload-endpoint", server.endpoint, "--upload-key", "{name}"],
                                     server)
            defer { program.killIfRunning() }
            #expect(await program.waitForError(containing: "NoSuchBucket"), "\(program.error)")
            #expect(program.error.contains("s3://later-bucket/a.mov") && program.error.contains("again in"), "\(program.error)")
            _ = try server.contents("later-bucket", creating: true)
            #expect(await program.waitForExit(deadline: .seconds(120)), "the queue did not store the file once the bucket existed")
            program.killIfRunning()
            #expect(program.process.terminationStatus == 0, "\(program.error)")
            #expect(try server.contents("later-bucket").objects["a.mov"] == (try sha256OfFiles(in: recordings))["a.mov"])
        }

        /// A loop of 3 segments over a 60 s recording while the server is unreachable for its
        /// first five segments (20 s):
        /// every segment reaches the bucket, none deleted before it was stored.
        @Test func retentionKeepsWhatIsNotStored() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let server = try await S3TestServer.start(in: directory)
            defer { server.stop() }
            let down = directory.file("network-down")
            #expect(FileManager.default.createFile(atPath: down, contents: nil))
            let proxy = try await FaultProxy.start(to: server, ["--down-file", down])
            defer { proxy.stop() }
            let recordings = try makeRecordings(in: directory)
            let program = try movrec(["record", recordings + "/seg-%03d.mov", "--video", "testsrc", "--size", "640x360", "--audio", "tone",
                                      "--segment-duration", "4", "--keep-segments", "3", "--duration", "60", "--upload", "s3://recordings/",
                                      "--upload-key", "{name}", "--upload-endpoint", proxy.endpoint], server)
            defer { program.killIfRunning() }
            // About 20 s of outage: until the sixth segment begins (five have 4 s each), then the
            // network is back.
            #expect(await program.waitForError(containing: "seg-005.mov"), "\(program.error)")
            let heldDuringOutage = try FileManager.default.contentsOfDirectory(atPath: recordings).filter { $0.hasSuffix(".mov") }.count
            try FileManager.default.removeItem(atPath: down)
            #expect(await program.waitForExit(deadline: .seconds(180)), "movrec did not finish: \(program.error.suffix(500))")
            program.killIfRunning()
            #expect(program.process.terminationStatus == 0 && !program.output.contains("dropped"), "\(program.output)")
            #expect(heldDuringOutage > 3, "retention deleted files that were not stored: \(heldDuringOutage) during the outage")
            let (objects, _) = try server.contents()
            let expected = (0..<15).map { "seg-" + String(repeating: "0", count: 3 - String($0).count) + String($0) + ".mov" }
            #expect(expected.allSatisfy { objects[$0] != nil }, "missing: \(expected.filter { objects[$0] == nil })")
            let left = try FileManager.default.contentsOfDirectory(atPath: recordings).filter { $0.hasSuffix(".mov") }
            #expect(left.count <= 3, "retention did not delete stored files afterwards: \(left.sorted())")
        }

        /// On a small disk (a 32 MiB tmpfs) with the server unreachable throughout, held
        /// segments pile up until the disk's floor forces retention: it deletes the oldest and
        /// says so, and the recording runs its full length. A later `movrec upload` stores the rest.
        @Test func theDisksFloorOverridesTheHold() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let disk = directory.file("disk")
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
            let mounted = try run("mount", ["-t", "tmpfs", "-o", "size=32m", "tmpfs", disk])
            try #require(mounted.status == 0, "this test mounts a 32 MiB tmpfs and needs root for it: \(mounted.error)")
            defer { _ = try? run("umount", [disk]) }
            let server = try await S3TestServer.start(in: directory)
            defer { server.stop() }
            let down = directory.file("network-down")
            #expect(FileManager.default.createFile(atPath: down, contents: nil))
            let proxy = try await FaultProxy.start(to: server, ["--down-file", down])
            defer { proxy.stop() }
            let program = try movrec(["record", disk + "/seg-%03d.mov", "--video", "testsrc", "--size", "1280x720", "--bitrate", "8000",
                                      "--segment-duration", "3", "--keep-segments", "2", "--min-free", "16M", "--duration", "30",
                                      "--upload", "s3://recordings/", "--upload-key", "{name}", "--upload-endpoint", proxy.endpoint], server)
            defer { program.killIfRunning() }
            #expect(await program.waitForError(containing: "before it was uploaded"), "the floor never forced a deletion: \(program.error.suffix(600))")
            // The queue's status line comes once the recording has ended.
            #expect(await program.waitForError(containing: "to go, 0 stored"), "the recording did not end: \(program.error.suffix(600))")
            #expect(!program.output.contains("free on the disk"), "the recording stopped at the floor: \(program.output)")
            program.send(SIGINT)  // leave the rest of the queue for later
            #expect(await program.waitForExit(deadline: .seconds(60)), "a Ctrl-C did not stop the queue")
            program.killIfRunning()
            #expect(program.process.terminationStatus == 0 && !program.output.contains("dropped"), "\(program.output)")
            try FileManager.default.removeItem(atPath: down)
            let rest = try run(movrecPath(), ["upload", disk, "s3://recordings/", "--upload-key", "{name}", "--upload-endpoint", server.endpoint],
                               environment: server.environment)
            #expect(rest.status == 0, "\(rest.error)")
            let (objects, _) = try server.contents()
            let left = try sha256OfFiles(in: disk) { $0.hasSuffix(".mov") }
            #expect(!left.isEmpty, "nothing was left to upload")
            expectStored(left, in: objects, prefix: "")
        }

        /// On a file system without extended attributes (ramfs here; FAT and exFAT cards are
        /// others) the state goes into a hidden journal beside the files, and a second run
        /// sends nothing.
        @Test func withoutExtendedAttributesAHiddenJournalKeepsTheState() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let server = try await S3TestServer.start(in: directory)
            defer { server.stop() }
            let disk = directory.file("ramfs")
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
            let mounted = try run("mount", ["-t", "ramfs", "ramfs", disk])
            try #require(mounted.status == 0, "this test mounts a ramfs (no extended attributes) and needs root for it: \(mounted.error)")
            defer { _ = try? run("umount", [disk]) }
            let made = try run(movrecPath(), ["record", disk + "/a.mov", "--video", "testsrc", "--size", "320x240", "--duration", "1", "--quiet"])
            try #require(made.status == 0, "\(made.error)")
            #expect(!ExtendedAttribute.set("user.movierecorder.probe", to: "1", at: disk + "/a.mov"), "ramfs kept an extended attribute")
            let arguments = ["upload", disk, "s3://recordings/", "--upload-endpoint", server.endpoint, "--quiet"]
            #expect(try run(movrecPath(), arguments, environment: server.environment).status == 0)
            let journal = try String(contentsOfFile: disk + "/.movierecorder-uploads", encoding: .utf8)
            #expect(journal.contains("a.mov\tv2\tdone"), "journal: \(journal)")
            #expect(try run(movrecPath(), arguments, environment: server.environment).status == 0)
            #expect(server.requests().filter { $0.method == "PUT" }.count == 1, "sent again: \(server.requests().map(\.path))")
        }

        /// Destinations and credentials the queue refuses, each with a message that says why.
        @Test func badDestinationsAndCredentialsAreRefused() throws {
            #expect(throws: UploadError.self) { try UploadDestination("http://bucket/prefix") }
            #expect(throws: UploadError.self) { try UploadDestination("s3://Bad_Bucket/x") }
            #expect(throws: UploadError.self) { try UploadDestination("s3://bucket/x", endpoint: "ftp://host") }
            let remote = try UploadDestination("s3://bucket/x", endpoint: "http://192.0.2.1:9000")
            let credentials = try UploadCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret-key-example")
            do {
                _ = try UploadQueue(destination: remote, credentials: credentials)
                Issue.record("plain HTTP to another host was accepted")
            } catch {
                #expect(error.code == .invalidDestination && error.message.contains("plain HTTP"), "\(error)")
            }
            #expect(!credentials.description.contains("secret-key-example"))
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let file = directory.file("credentials")
            try SecretFile.create(file, holding: "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = file-secret\n")
            #expect(try UploadCredentials(file: file).accessKeyID == "AKIDFILE")
            _ = chmod(file, 0o644)
            #expect { try UploadCredentials(file: file) } throws: { ($0 as? UploadError)?.message.contains("chmod 600") == true }
            let usage = try run(movrecPath(), ["upload", directory.path, "s3://recordings/", "--upload-endpoint", "http://127.0.0.1:9"],
                                environment: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""])
            #expect(usage.status == 2 && usage.error.contains("AWS_ACCESS_KEY_ID"), "\(usage.error)")
        }
    }
}
