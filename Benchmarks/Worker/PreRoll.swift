@_spi(Benchmarks) import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// Case m: the event clips' pre-roll over a long recording.
///
/// `preroll --size WxH --kbps N --seconds S [--pre S]` encodes 20 s of the test pattern at
/// N kbit/s (constant, HRD filler) and loops it through a pre-roll of `--pre` seconds (10) for S
/// seconds of media. Reports the encoded rate, the pre-roll's largest size, and the process's
/// resident memory after the first minute and the tenth minute of media (once the encoder's
/// memory has gone back) and in the last minute; and how long beginning a clip from a full
/// pre-roll holds up the writing thread (the file, its pictures, its audio encoded).
func preRoll(_ arguments: [String]) throws {
    var size: (Int, Int)?, kbps: Int?, seconds: Int?, pre = 10
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
        switch argument {
        case "--size":
            let parts = remaining.popFirst()?.split(separator: "x").compactMap { Int($0) } ?? []
            if parts.count == 2 { size = (parts[0], parts[1]) }
        case "--kbps": kbps = remaining.popFirst().flatMap { Int($0) }
        case "--seconds": seconds = remaining.popFirst().flatMap { Int($0) }
        case "--pre": pre = remaining.popFirst().flatMap { Int($0) } ?? pre
        default: fail("preroll: unknown argument '\(argument)'")
        }
    }
    guard let size, let kbps, let seconds, seconds >= 60 else {
        fail("usage: bench-worker preroll --size WxH --kbps N --seconds S (at least 60) [--pre S]")
    }
    let bench = try EventPreRollBenchmark(width: size.0, height: size.1, kilobitsPerSecond: kbps)
    var afterMinute = Double.nan, afterTenMinutes = Double.nan, last = Double.nan
    let largest = bench.feed(seconds: seconds, duration: .seconds(pre), every: 1800) { frames, _ in
        if frames == 1800 { afterMinute = residentBytes() }
        if frames == 18_000 { afterTenMinutes = residentBytes() }
        last = residentBytes()  // the last minute's, with the pre-roll full
    }
    report("beginClipSeconds", try bench.secondsToBeginAClip(at: "/tmp/bench-preroll-clip.mov", duration: .seconds(pre)))
    report("encodedKbps", bench.measuredKilobitsPerSecond)
    report("preRollBytesMax", Double(largest))
    report("rssAfterMinute", afterMinute)
    report("rssAfterTenMinutes", afterTenMinutes)
    report("rssAtEnd", last)
}

/// The process's resident set now (VmRSS in /proc/self/status), in bytes.
private func residentBytes() -> Double {
    guard let file = fopen("/proc/self/status", "r") else { return .nan }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmRSS:") {
            return Double(text.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? .nan) * 1024
        }
    }
    return .nan
}
