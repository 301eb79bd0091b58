@_spi(Benchmarks) import MovieRecorder

/// Case i: the audio clock correction alone. `correct --seconds S --ppm P [--measure-only]`:
/// a 48 kHz stereo tone as a microphone P ppm off delivers it, through the recording's
/// corrector; reports the seconds it took per second of audio (the tone is generated first
/// and not counted).
func correct(_ arguments: [String]) throws {
    let options = Options(arguments)
    let seconds = Int(try options.number("--seconds", default: 60))
    let ppm = Int64(try options.number("--ppm", default: 1000))
    let measured = try ClockCorrectionBenchmark.secondsPerSecond(seconds: seconds, partsPerMillion: ppm,
                                                                 correcting: !options.flags.contains("--measure-only"))
    report("secondsPerSecond", measured)
}
