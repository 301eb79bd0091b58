import MovieContainer
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder

let usage = """
    usage: movrec COMMAND ...

    commands:
      inspect FILE [--json]
          Print the atom tree with offsets and sizes, and each track's codec, size, duration
          and the orientation players will show.
      rotate FILE --angle A [--mirror | --no-mirror]
          Set the orientation of a .mov/.mp4 in place, losslessly: only the 36 matrix bytes of
          the video track header change. A is 0, 90, 180 or 270 degrees clockwise. Without
          --mirror/--no-mirror the file's current mirroring is kept.
      record OUT.mov [--video DEVICE|testsrc|FILE.y4m] [--audio DEVICE|tone|FILE.wav|none]
             [--size WxH] [--fps N[/D]] [--rotation A] [--mirror] [--duration S] [--overwrite]
             [--preset P] [--tune T] [--profile P] [--crf N | --bitrate KBITS] [--keyint N]
             [--bframes N] [--threads N] [--x264-params k=v:k=v] [--quiet]
             [--gravity iio[:NAME|:PATH] | manual] [--mounting front|back|external[:ROTATION]]
             [--max-size BYTES[K|M|G]] [--min-free BYTES[K|M|G]]
             [--fragment-interval S | --no-fragments] [--sync]
          Record H.264 and PCM into a QuickTime movie from a V4L2 camera (default /dev/video0),
          the test pattern or a Y4M file, and an ALSA device, a tone or a WAV file (default
          none). The rotation goes into the track matrix. Ctrl-C or SIGTERM stops cleanly with
          a finalized movie; --duration stops after that many seconds of media. With --gravity
          the angle comes from the accelerometer and the camera's mounting (the driver's, or
          --mounting) instead of --rotation. A movie fragment is written every second (or
          --fragment-interval), so a crash or kill loses at most about that much (`movrec repair`
          finishes such a file); --sync also flushes each fragment to the disk.
      photo OUT.jpg [--video DEVICE|testsrc] [--size WxH] [--rotation A] [--mirror]
            [--quality N] [--overwrite]
          Capture one still as JPEG; the orientation goes into the Exif Orientation tag, the
          pixels are not rotated.
      repair FILE [--output OUT] [--overwrite]
          Turn a recording cut off by a crash, a kill or a full disk into an ordinary movie,
          keeping every whole fragment, the orientation, metadata and exact durations; in place,
          or into OUT.
      devices
          List cameras with their formats, sizes and frame rates, and microphones.
      mux OUT.mov --video FILE.264 [--audio FILE.wav] [--fps N[/D]] [--rotation A] [--mirror] [--overwrite]
          [--fragment-interval S] [--sync]
          Write an H.264 Annex-B stream (and a PCM WAV file) into a QuickTime movie without
          re-encoding, with the given orientation in the track matrix. --fragment-interval
          writes a movie fragment every S seconds, as a recording does, and finishes the file
          into an ordinary movie. --sync flushes the movie (and each fragment) to the disk
          before exiting; by default, like cp, the kernel writes it back in its own time.

    exit status: 0 success, 1 failure (the message says why), 2 usage error
    """

func standardError(_ text: String) {
    let line = text + "\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}

installSignalHandlers()
let words = Array(CommandLine.arguments.dropFirst())
guard let command = words.first else {
    standardError(usage)
    exit(2)
}
var args = Arguments(Array(words.dropFirst()))
do {
    let status: Int32
    switch command {
    case "inspect": status = try inspect(&args)
    case "rotate": status = try rotate(&args)
    case "mux": status = try mux(&args)
    case "record": status = try await record(args)
    case "devices": status = try devices(&args)
    case "photo": status = try await photo(args)
    case "repair": status = try repair(&args)
    case "help", "--help", "-h":
        print(usage)
        status = 0
    default:
        throw Arguments.UsageError(description: "unknown command '\(command)'")
    }
    exit(status)
} catch let error as Arguments.UsageError {
    standardError("movrec: \(error)\n\n\(usage)")
    exit(2)
} catch {
    standardError("movrec: \(error)")
    exit(1)
}
