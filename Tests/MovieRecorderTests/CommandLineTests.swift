import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The `movrec` executable: output a user or a script can rely on, and exit codes and messages
/// a user can act on.
@Suite struct CommandLineTests {
    @Test func inspectPrintsTreeAndOrientation() throws {
        let result = try run(movrecPath(), ["inspect", fixture("golden/video-audio-48k-stereo.mov")])
        #expect(result.status == 0)
        #expect(result.output.contains("ftyp @0 size 20"))
        #expect(result.output.contains("mdat @28"))
        #expect(result.output.contains("track 1: video 'avc1' 160x120"))
        #expect(result.output.contains("matrix: 0 1 0 -1 0 0 120 0 1"))
        #expect(result.output.contains("rotated 90° clockwise; ffprobe shows rotation -90, mediainfo and exiftool 90"))
        #expect(result.output.contains("track 2: audio 'sowt' s16le 48000 Hz 2 ch"))
    }

    @Test func inspectJSONIsParseableAndComplete() throws {
        let result = try run(movrecPath(), ["inspect", "--json", fixture("golden/orientation-270-mirrored.mov")])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: result.outputData) as? [String: Any])
        let tracks = try #require(json["tracks"] as? [[String: Any]])
        #expect(tracks.count == 1)
        #expect(tracks[0]["rotation"] as? Int == 270)
        #expect(tracks[0]["mirrored"] as? Bool == true)
        #expect(tracks[0]["ffprobeRotation"] as? Int == 90)
        #expect(tracks[0]["exifOrientation"] as? Int == 7)
        #expect(tracks[0]["sampleCount"] as? Int == 30)
        let atoms = try #require(json["atoms"] as? [[String: Any]])
        #expect(atoms.map { $0["type"] as? String } == ["ftyp", "wide", "mdat", "moov"])
    }

    @Test func inspectOfUnfinishedFileShowsTreeAndExplains() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("cut.mov")
        let bytes = try RandomAccessFile.readAll(fixture("golden/orientation-0.mov"))
        let moov = try #require(try MovieInfo(source: InMemoryMovieSource(bytes)).tree.atom("moov"))
        try Data(bytes.prefix(Int(moov.offset))).write(to: URL(fileURLWithPath: path))
        let result = try run(movrecPath(), ["inspect", path])
        #expect(result.status == 1)
        #expect(result.output.contains("mdat @28"))
        #expect(result.output.contains("no movie atom ('moov')"))
    }

    @Test(arguments: ["same", "link"])
    func muxRefusesToWriteOverItsInput(how: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let input = dir.file("in.264")
        let original = try RandomAccessFile.readAll(fixture("testsrc-ipp.264"))
        try writeFile(input, original)
        var output = input
        if how == "link" {
            output = dir.file("out.mov")
            #expect(symlink(input, output) == 0)
        }
        let result = try run(movrecPath(), ["mux", output, "--video", input, "--overwrite"])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains("is the input"), "\(result.error)")
        #expect(try RandomAccessFile.readAll(input) == original, "the input is untouched")
    }

    /// A usage error is one line naming the bad argument and a pointer to the command's help,
    /// not the whole usage.
    @Test func usageErrorsExitWithTwoAndOneLine() throws {
        let cases: [([String], String, String)] = [
            ([], "no command given", "See 'movrec help'."),
            (["frobnicate"], "unknown command 'frobnicate'", "See 'movrec help'."),
            (["inspect"], "inspect: missing file argument", "See 'movrec help inspect'."),
            (["rotate", "x.mov"], "rotate: --angle is required", "See 'movrec help rotate'."),
            (["inspect", "--bogus", "x.mov"], "inspect: unknown option --bogus", "See 'movrec help inspect'."),
            (["record", "x.mov", "--video", "testsrc", "--degrade", "--no-degrade"], "record: --degrade and --no-degrade: give one of them",
             "See 'movrec help record'."),
            (["record", "x.mov", "--encoder", "gpu"], "record: --encoder gpu is not auto, software or a device such as /dev/video11",
             "See 'movrec help record'."),
            (["record", "x.mov", "--encoder", "/dev/video11", "--preset", "slow"],
             "record: --preset applies to x264 and x265 only, not to the hardware encoder /dev/video11; leave it out, or use --bitrate and --keyint",
             "See 'movrec help record'."),
            (["record", "x.mov", "--encoder", "/dev/video11", "--crf", "20"],
             "record: --crf applies to x264 and x265 only, not to the hardware encoder /dev/video11; leave it out, or use --bitrate and --keyint",
             "See 'movrec help record'."),
        ]
        for (arguments, message, hint) in cases {
            let result = try run(movrecPath(), arguments)
            #expect(result.status == 2, "\(arguments)")
            let lines = result.error.split(separator: "\n").map(String.init)
            #expect(lines == ["movrec: " + message, hint], "\(arguments): \(result.error)")
        }
    }

    @Test func helpForOneCommandShowsItsUsage() throws {
        let result = try run(movrecPath(), ["help", "mux"])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("usage: movrec mux OUT.mov --video FILE.264"), "\(result.output)")
        #expect(!result.output.contains("record OUT.mov"), "only mux's usage")
        let all = try run(movrecPath(), ["help"])
        for command in ["inspect", "rotate", "record", "photo", "repair", "devices", "mux"] {
            #expect(all.output.contains("\n  \(command)"), "movrec help lists \(command)")
        }
    }

    /// Every command takes `--help` and `-h`, anywhere after it, and prints its own usage with
    /// exit 0 (nothing else runs: `record -h` opens no camera); `movrec --version` prints the
    /// version the library reports.
    @Test func everyCommandTakesHelpAndTheToolItsVersion() throws {
        for command in ["inspect", "rotate", "record", "photo", "repair", "devices", "controls", "mux", "live"] {
            for flag in ["--help", "-h"] {
                for arguments in [[command, flag], [command, "x.mov", flag]] {
                    let result = try run(movrecPath(), arguments)
                    #expect(result.status == 0 && result.output.hasPrefix("usage: movrec \(command)") && result.error.isEmpty,
                            "\(arguments): \(result.status) \(result.output.prefix(80)) \(result.error)")
                }
            }
        }
        let version = try run(movrecPath(), ["--version"])
        #expect(version.status == 0 && version.output == "movrec \(MovieRecorderVersion.current)\n", "\(version.output)")
        #expect(MovieRecorderVersion.current >= MovieRecorderVersion(major: 1, minor: 0, patch: 0))
        let changelog = try String(contentsOfFile: fixture("../CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("## [\(MovieRecorderVersion.current)]"), "CHANGELOG.md has the current version")
    }

    /// A word that starts with `-` and is no option of the command is a usage error (exit 2)
    /// wherever it stands, never taken for a file; after `--` it is a file.
    @Test func unknownDashWordsAreUsageErrorsInEveryPosition() throws {
        for arguments in [["inspect", "-x", "a.mov"], ["inspect", "a.mov", "-x"], ["record", "-q", "a.mov"],
                          ["record", "a.mov", "--video", "testsrc", "-q"], ["rotate", "a.mov", "--angle", "90", "-f"],
                          ["repair", "-v", "a.mov"], ["mux", "out.mov", "--video", "in.264", "-y"]] {
            let result = try run(movrecPath(), arguments)
            #expect(result.status == 2 && result.error.contains("unknown option -"), "\(arguments): \(result.status) \(result.error)")
        }
        let dashed = try run(movrecPath(), ["inspect", "--", "-x"])
        #expect(dashed.status == 1 && dashed.error.contains("-x: opening failed"), "\(dashed.error)")
    }

    /// A file that is not a movie is said to be one (exit 1), not printed as an atom tree of its
    /// text; `--raw` shows the tree anyway. A damaged movie still gets its tree.
    @Test func inspectSaysWhenAFileIsNotAMovie() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let text = dir.file("passwd")
        try "root:x:0:0:root:/root:/bin/bash\n".write(toFile: text, atomically: true, encoding: .utf8)
        let result = try run(movrecPath(), ["inspect", text])
        #expect(result.status == 1 && result.output.isEmpty, "\(result.output)")
        #expect(result.error.contains("\(text) is not a QuickTime or MP4 movie"), "\(result.error)")
        let raw = try run(movrecPath(), ["inspect", "--raw", text])
        #expect(raw.status == 1 && raw.output.contains("TRUNCATED"), "\(raw.output)")
        let cut = dir.file("cut.mov")
        let golden = try RandomAccessFile.readAll(fixture("golden/bframes.mov"))
        try Data(golden.prefix(golden.count / 2)).write(to: URL(fileURLWithPath: cut))
        let damaged = try run(movrecPath(), ["inspect", cut])
        #expect(damaged.output.contains("ftyp @0"), "a damaged movie is still a movie: \(damaged.output) \(damaged.error)")
    }

    /// 8-bit `raw ` audio is unsigned offset binary, as QuickTime defines it: inspect says u8.
    @Test func eightBitRawAudioIsUnsigned() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("u8.mov")
        let made = try run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=0.5",
                                      "-c:a", "pcm_u8", "-f", "mov", path])
        #expect(made.status == 0, "\(made.error)")
        let info = try MovieInfo(path: path)
        #expect(info.tracks.first?.codec == "raw ")
        #expect(info.tracks.first?.pcmFormat?.isUnsigned == true)
        let report = try run(movrecPath(), ["inspect", path])
        #expect(report.output.contains("'raw ' u8 8000 Hz 1 ch"), "\(report.output)")
    }

    /// A photo over an existing file names the command line's option, not the library's
    /// parameter.
    @Test func photoOverAnExistingFileNamesTheOption() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("still.jpg")
        try RandomAccessFile(path: path, mode: .createNew).close()
        let result = try run(movrecPath(), ["photo", path, "--video", "testsrc", "--size", "320x240"])
        #expect(result.status == 1)
        #expect(result.error.contains("\(path) exists; choose another name, or pass --overwrite"), "\(result.error)")
        #expect(!result.error.contains("overwrite: true"))
    }

    /// A directory given as the movie's path is called a directory, not "File exists".
    @Test func aDirectoryAsTheOutputIsNamedSo() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let result = try run(movrecPath(), ["record", dir.path, "--video", "testsrc", "--size", "320x240", "--duration", "0.2", "--quiet"])
        #expect(result.status == 1)
        #expect(result.error.contains("Is a directory") && result.error.contains("give a file path, not a directory"), "\(result.error)")
        #expect(!result.error.contains("File exists"))
    }

    @Test func missingFileIsAnActionableError() throws {
        let result = try run(movrecPath(), ["inspect", "/nonexistent/x.mov"])
        #expect(result.status == 1)
        #expect(result.error.contains("/nonexistent/x.mov: opening failed: No such file or directory"))
    }

    @Test func muxWritesAMovieAndRefusesToOverwrite() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let out = dir.file("demo.mov")
        let arguments = ["mux", out, "--video", fixture("testsrc-bframes.264"), "--audio", fixture("tone-48k-stereo.wav"),
                         "--rotation", "90", "--mirror"]
        let first = try run(movrecPath(), arguments)
        #expect(first.status == 0, "\(first.error)")
        let written = try RandomAccessFile.readAll(out)
        let info = try MovieInfo(source: InMemoryMovieSource(written))
        #expect(info.videoTrack?.orientation == (try VideoOrientation(rotationAngle: 90, isMirrored: true)))
        #expect(info.tracks.count == 2)

        let second = try run(movrecPath(), arguments)
        #expect(second.status == 1)
        #expect(second.error.contains("File exists"))
        #expect(try RandomAccessFile.readAll(out) == written, "the existing file is untouched")
        #expect(try run(movrecPath(), arguments + ["--overwrite"]).status == 0)
    }

    @Test func muxRejectsBadInputWithoutLeavingAFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let out = dir.file("bad.mov")
        let notVideo = try run(movrecPath(), ["mux", out, "--video", fixture("tone-48k-stereo.wav")])
        #expect(notVideo.status == 1)
        #expect(notVideo.error.contains("H.264 bitstream"))
        let badAngle = try run(movrecPath(), ["mux", out, "--video", fixture("testsrc-ipp.264"), "--rotation", "45"])
        #expect(badAngle.status == 1)
        #expect(badAngle.error.contains("rotation angle 45.0° is not supported"))
        let notWAV = try run(movrecPath(), ["mux", out, "--video", fixture("testsrc-ipp.264"), "--audio", fixture("testsrc-ipp.264")])
        #expect(notWAV.status == 1)
        #expect(notWAV.error.contains("not a PCM WAV file"))
        #expect(!FileManager.default.fileExists(atPath: out), "no half-written file is left behind")
        let badInterval = try run(movrecPath(), ["mux", out, "--video", fixture("testsrc-ipp.264"), "--fragment-interval", "inf"])
        #expect(badInterval.status == 2)
        #expect(badInterval.error.contains("--fragment-interval inf is not a positive number of seconds"))
    }

    @Test func muxWithFragmentsFinishesIntoTheSameOrdinaryMovie() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let inputs = ["--video", fixture("testsrc-bframes.264"), "--audio", fixture("tone-48k-stereo.wav")]
        let plain = try run(movrecPath(), ["mux", dir.file("plain.mov")] + inputs)
        let fragmented = try run(movrecPath(), ["mux", dir.file("fragmented.mov"), "--fragment-interval", "0.3", "--sync"] + inputs)
        #expect(plain.status == 0 && fragmented.status == 0, "\(plain.error)\(fragmented.error)")
        let a = try MovieInfo(source: RandomAccessFile(path: dir.file("plain.mov"), mode: .read))
        let b = try MovieInfo(source: RandomAccessFile(path: dir.file("fragmented.mov"), mode: .read))
        #expect(b.tree.atoms.map(\.type) == ["ftyp", "mdat", "moov"], "fragment headers are hidden inside the mdat")
        #expect(a.tracks.count == 2 && b.tracks.count == 2)
        for (x, y) in zip(a.tracks, b.tracks) {
            let sx = try x.sampleTable!.samples(), sy = try y.sampleTable!.samples()
            #expect(sx.map(\.size) == sy.map(\.size))
            #expect(sx.map(\.decodeTime) == sy.map(\.decodeTime))
            #expect(sx.map(\.presentationTime) == sy.map(\.presentationTime))
            #expect(x.editList == y.editList)
        }
    }
}
