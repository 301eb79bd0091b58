import MovieCapture
import MovieContainer
import MovieEncoding
import MovieRecorder
import MovieNetwork
import Glibc

/// `movrec record`: a movie from a camera, the test pattern or a file.
enum RecordCommand {
    static let usage = """
        record OUT.mov [--video DEVICE|testsrc|FILE.y4m|FILE.yuyv|FILE.mjpeg] [--audio DEVICE|tone|FILE.wav|none]
               [--size WxH] [--fps N[/D]] [--rotation A] [--mirror] [--duration S] [--overwrite]
               [--codec h264|hevc] [--encoder auto|software|DEVICE] [--preset P] [--tune T] [--profile P] [--crf N | --bitrate KBITS] [--keyint N]
               [--bframes N] [--threads N] [--x264-params k=v:k=v | --x265-params k=v:k=v] [--quiet]
               [--audio-codec aac|lpcm] [--audio-bitrate KBITS] [--no-clock-correction] [--degrade|--no-degrade] [--sync-marks] [--tone-drift PPM]
               [--segment-duration S] [--segment-size BYTES[K|M|G]] [--strftime] [--segment-on-rotation]
               [--keep-segments N] [--keep-bytes BYTES[K|M|G]]
               [--gravity iio[:NAME|:PATH] | manual] [--mounting front|back|external[:ROTATION]]
               [--control NAME=VALUE ...]
               [--max-size BYTES[K|M|G]] [--min-free BYTES[K|M|G]]
               [--fragment-interval S | --no-fragments] [--sync]
               [--photo-every S [--photo-directory DIR]]
               [--live HOST:PORT] [--live-size WxH] [--live-token-file PATH] [--print-token] [--hls-directory DIR [--hls-window N] [--hls-mode MODE]]
               [--rtsp HOST:PORT [--rtsp-credentials FILE] [--rtsp-turn-pixels]]
               [--upload s3://BUCKET/PREFIX [--upload-endpoint URL] [--upload-rate BYTES[K|M]] [--delete-after-upload] …]
               [--gps [HOST:PORT]]
               [--event-directory DIR [--event-pre S] [--event-post S] [--event-on-impact G] [--keep-events-bytes BYTES[K|M|G]]]
            Record H.264 (or --codec hevc: 'hvc1' through x265, with a preset that keeps up with
            a live source unless --preset is given) and AAC (or --audio-codec lpcm; AAC at --audio-bitrate, default 128
            kbit/s for stereo, 64 for mono) into a QuickTime movie from a V4L2 camera (default
            /dev/video0), the test pattern, a Y4M file or recorded camera buffers (.yuyv, .uyvy,
            .nv12, .nv21, .rgb, .bgr, .i420 with --size and --fps, or a .mjpeg stream), and an ALSA
            device, a tone or a WAV file (default none). --encoder DEVICE encodes with a V4L2
            hardware encoder (`movrec devices` lists them; --bitrate and --keyint become its
            controls, and --preset, --tune, --crf, --bframes, --threads and the -params options,
            which are x264's and x265's, are refused); --encoder auto takes the first that makes
            the codec at the size, else x264 or x265. A sound card's clock is measured against
            the system clock (the drift in ppm is on the status line and in the result) and its
            audio resampled to follow the video, unless --no-clock-correction; --tone-drift PPM
            makes the tone such a device, its clock that far off. --sync-marks makes the test
            pattern flash white and the tone click at every whole second, to check audio-video
            sync. When the encoder falls behind or the machine overheats, the live view gives way
            first, then the recording keeps every second, then every third frame, evenly, until it
            keeps up again (the status line shows the pressure, the result the planned and
            unplanned drops); --no-degrade loses frames where it must instead. The rotation goes
            into the track matrix. Ctrl-C or SIGTERM stops cleanly with
            a finalized movie; --duration stops after that many seconds of media. With --gravity
            the angle comes from the accelerometer and the camera's mounting (the driver's, or
            --mounting) instead of --rotation. A movie fragment is written every second (or
            --fragment-interval), so a crash or kill loses at most about that much (`movrec repair`
            finishes such a file); --sync also flushes each fragment to the disk. With
            --segment-duration or --segment-size OUT is a pattern ('clip-%03d.mov', or with
            --strftime '%Y-%m-%d_%H-%M-%S.mov') and the recording goes on into a new file at an IDR,
            losing no frame or sample; --segment-on-rotation also starts one when the device turns;
            --keep-segments and --keep-bytes delete the oldest files of the recording beyond them.
            --control sets a camera control (as `movrec controls` lists them) before recording,
            and holds the camera's configuration lock until the recording ends. --photo-every
            takes a JPEG photo every S seconds while recording, into --photo-directory (default
            the movie's directory) as photo-0001.jpg and on, without costing the movie a frame.
            --live serves a live view while recording (a page to watch it in a browser, and LL-HLS
            for other players; its address is printed), from a second small encode of at most
            --live-size (default 640x360); --hls-directory also writes HLS there for a web server.
            See `movrec help live`. --rtsp serves the recording's own encode as rtsp://HOST:PORT/main
            and a small zero-latency one as .../sub for NVRs and players, printing both URLs; see
            `movrec help live`. Every movie has a timed orientation track that follows the
            device's turns; --gps adds a timed location track from gpsd (default 127.0.0.1:2947),
            at most one fix a second, its gaps where gpsd had no fix (`movrec inspect --metadata`
            and `--gpx` read them back). With --event-directory the last --event-pre seconds
            (default 10) are kept in memory, encoded, and SIGUSR1 (or, with --event-on-impact, a
            change of acceleration of G g, such as 2.5g, on the --gravity accelerometer or the
            first found) saves an event clip into DIR: from the last IDR at or before that far
            back through --event-post seconds (default 5) on; another trigger during the
            post-roll extends it. Each clip prints a line. Clips are never deleted by
            --keep-segments or --keep-bytes; --keep-events-bytes deletes the oldest clips beyond it.
            --upload puts every finished file (segments, clips, photos, the movie) into S3-compatible
            storage while recording, event clips first, resuming uploads a killed run began, and
            finishes the queue before exiting (a second Ctrl-C leaves the rest for `movrec
            upload`); retention keeps a file until it is stored unless the disk's floor (--min-free,
            or a full disk) forces it; the other --upload-… options are `movrec upload`'s.
        """
}

/// `movrec record OUT.mov [--video DEVICE|testsrc|FILE.y4m|FILE.yuyv|FILE.mjpeg] [--audio DEVICE|tone|FILE.wav|none] …`
func record(_ arguments: Arguments) async throws -> Int32 {
    let options = try RecordOptions(parsing: arguments)
    let sources = try RecordSources(options)
    // --control: set before the session starts, and held for the recording.
    var configuration: CameraConfiguration?
    if !options.controls.isEmpty {
        guard let camera = sources.video as? V4L2Camera else {
            throw Arguments.UsageError(description: "--control needs a V4L2 camera as --video")
        }
        configuration = try applyControls(options.controls, to: camera)
    }
    defer { configuration?.unlockForConfiguration() }
    let service = CaptureService()
    let movie = try RecordCommand.movieOutput(options, video: sources.video)
    try await service.session.configure { [video = sources.video, audio = sources.audio] config in
        try config.addInput(video)
        if let audio { try config.addInput(audio) }
    }
    try await service.addOutput(movie)  // the service turns it to its angle (0 until gravity says otherwise)
    let observer = try await RecordCommand.orient(movie, options: options, sources: sources, service: service)
    let photos = try await RecordCommand.photoOutput(options, sources: sources, service: service)
    let liveView = try await LiveView.start(options.live, service: service)
    if let liveView, sources.gravity == nil { try liveView.output.setVideoRotationAngle(Double(options.orientation.rotationAngle)) }
    liveView?.output.setVideoMirrored(options.orientation.isMirrored)
    let rtsp = try await RTSPService.start(options.rtsp, main: .recording(movie), liveView: liveView, orientation: options.orientation,
                                           service: service)
    let uploads = try options.upload.resolved()?.start()
    movie.fileObserver = uploads
    // Uploads a killed run began in these directories go on first.
    for directory in Set([RecordCommand.directory(of: options.output)] + [options.events?.settings.directory].compactMap { $0 }) {
        uploads?.resumeUnfinishedUploads(in: directory)
    }
    let uploadPrinter = uploads.map { UploadReport.printEvents(of: $0) }
    try await RecordCommand.start(movie, in: service.session, options: options)
    let impacts = try EventTriggers.startImpactDetector(options, gravity: sources.gravity, movie: movie)
    defer { impacts?.stop() }
    let photographer = photos.map { output in Task { await RecordCommand.takePhotos(output, options: options, uploads: uploads) } }
    let loop = RecordingLoop(movie: movie, session: service.session, output: options.output, quiet: options.quiet,
                             eventPostRoll: options.events?.postRoll, uploads: uploads)
    defer { loop.cancel() }
    let result = await loop.run()
    photographer?.cancel()
    let taken = await photographer?.value
    await service.session.stopRunning()
    await liveView?.stop()
    await rtsp?.stop()
    if let photos, let taken {
        await photos.finishProcessing()
        if !options.quiet { print("\(taken) photos in \(RecordCommand.photoDirectory(options))") }
    }
    await service.stopObservingRotation()
    withExtendedLifetime(observer) {}
    if let uploads {
        loop.cancel()  // a signal from here on is the queue's
        _ = await UploadReport.finish(uploads, quiet: options.quiet)
        uploadPrinter?.cancel()
    }
    return RecordCommand.exitStatus(of: result)
}

extension RecordCommand {
    /// With `--photo-every`, a photo output added to the service (which turns it to its angle).
    static func photoOutput(_ options: RecordOptions, sources: RecordSources, service: CaptureService) async throws -> PhotoOutput? {
        guard options.photoEvery != nil else { return nil }
        let photos = PhotoOutput()
        photos.isResponsiveCaptureEnabled = true
        try await service.addOutput(photos)
        // With --gravity the service turns it with the movie; otherwise it takes --rotation.
        if sources.gravity == nil { try photos.setVideoRotationAngle(Double(options.orientation.rotationAngle)) }
        photos.setVideoMirrored(options.orientation.isMirrored)
        return photos
    }

    /// Where `--photo-every` writes: `--photo-directory`, else the movie's directory.
    static func photoDirectory(_ options: RecordOptions) -> String {
        options.photoDirectory ?? directory(of: options.output)
    }

    /// The directory of `path` ("." for a bare name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Takes a photo every `--photo-every` seconds until cancelled; returns how many were written.
    static func takePhotos(_ output: PhotoOutput, options: RecordOptions, uploads: UploadQueue?) async -> Int {
        guard let every = options.photoEvery else { return 0 }
        let clock = ContinuousClock(), start = clock.now
        let directory = photoDirectory(options)
        var taken = 0
        for number in 1... {
            do {
                try await clock.sleep(until: start + every * Double(number))
            } catch {
                return taken
            }
            let digits = String(number)
            let path = directory + "/photo-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + ".jpg"
            do {
                let photo = try await output.capturePhoto(to: path, overwrite: options.overwrite)
                if !photo.isProxy { uploads?.add(FinishedRecordingFile(path: path, kind: .photo)) }
                taken += 1
            } catch is CancellationError {
                return taken
            } catch {
                standardError("movrec: photo \(path): \(error)")
            }
        }
        return taken
    }

    /// The movie output with the encoder settings, limits, fragments and durability asked for.
    /// - Throws: `Arguments.UsageError` for a bad `--max-size`, `--min-free` or `--fragment-interval`.
    static func movieOutput(_ options: RecordOptions, video: any VideoSource) throws -> MovieFileOutput {
        var encoder = options.encoder
        if encoder.codec == .hevc && !options.presetGiven && video.isLive && encoder.encoder == .software {
            encoder.preset = hevcPreset(for: video.format, quiet: options.quiet)
        }
        let movie = MovieFileOutput(encoderSettings: encoder)
        movie.audioSettings = options.audioEncoding
        movie.audioClockCorrection = !options.noClockCorrection
        movie.degradesUnderPressure = options.degrade
        movie.segmentDuration = options.segmentDuration
        movie.segmentFileSize = try RecordOptions.byteCount(options.segmentSize, "--segment-size")
        movie.maximumSegmentCount = options.keepSegments
        movie.maximumTotalSize = try RecordOptions.byteCount(options.keepBytes, "--keep-bytes")
        movie.startsNewSegmentOnRotationChange = options.segmentOnRotation
        movie.maxRecordedDuration = options.maxDuration
        movie.maxRecordedFileSize = try RecordOptions.byteCount(options.maxFileSize, "--max-size")
        movie.minFreeDiskSpaceLimit = try RecordOptions.byteCount(options.minFreeDiskSpace, "--min-free")
        if options.noFragments {
            movie.movieFragmentInterval = nil
        } else if let text = options.fragmentInterval {
            movie.movieFragmentInterval = try RecordOptions.fragmentInterval(text)
        }
        if options.syncFragments { movie.durability = .syncEachFragment }
        if let gps = options.gps { movie.locationSource = GPSDLocationSource(host: gps.host, port: gps.port) }
        movie.eventClipSettings = options.events?.settings
        return movie
    }

    /// The x265 preset for a live source of `format`: the slowest that keeps up here, said on
    /// standard error, with how far it falls short when none does.
    static func hevcPreset(for format: VideoFormat, quiet: Bool) -> String {
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let choice = HEVCPresetChoice.choose(width: format.width, height: format.height, frameRate: format.frameRate,
                                             processorCount: cores)
        let rate = "\(format.width)x\(format.height) at \(formatted(choice.requiredFramesPerSecond)) fps"
        let expected = "about \(formatted(choice.expectedFramesPerSecond)) fps on \(cores) processors"
        if !choice.keepsUp {
            let lost = max(0, 1 - choice.expectedFramesPerSecond / choice.requiredFramesPerSecond)
            let outcome = lost > 0 ? "expect about \(Int((lost * 100).rounded()))% of the frames dropped"
                : "that leaves less than a fifth for the rest of the recording; expect frames dropped when the machine is busy"
            standardError("movrec: HEVC cannot keep up with \(rate) here: its fastest preset, ultrafast, encodes \(expected); "
                + "\(outcome). Use a smaller --size, a lower --fps, or --codec h264")
        } else if !quiet {
            standardError("movrec: HEVC preset \(choice.preset) for \(rate) (\(expected); --preset chooses another)")
        }
        return choice.preset
    }

    private static func formatted(_ value: Double) -> String { String(Int(value.rounded())) }

    /// Turns the movie to `--rotation`, or with `--gravity` to the angle that gravity and the
    /// camera's mounting give, waiting up to a second for the service to apply it.
    /// - Returns: the rotation observer for `--gravity`, which must live as long as the recording.
    static func orient(_ movie: MovieFileOutput, options: RecordOptions, sources: RecordSources,
                       service: CaptureService) async throws -> RotationObserver? {
        if sources.gravity == nil {
            try movie.setVideoRotationAngle(Double(options.orientation.rotationAngle))
        }
        movie.setVideoMirrored(options.orientation.isMirrored)
        guard let gravity = sources.gravity else { return nil }
        // The angle at the start comes from gravity and the camera's mounting; later turns are
        // reported in the result, as on Apple platforms.
        let rotation = RotationObserver(gravitySource: gravity)
        await service.observeRotation(of: rotation)
        try rotation.setCamera(sources.video, mounting: sources.mounting)
        let expected = rotation.coordinator?.videoRotationAngleForHorizonLevelCapture ?? 0
        // The service applies the same angle when its task gets to it; the recording must not wait.
        try movie.setVideoRotationAngle(expected)
        if !options.quiet { standardError("movrec: gravity says \(Int(expected))° (\(rotation.coordinator?.mounting.description ?? ""))") }
        return rotation
    }

    /// Starts the session, then the recording; a recording that cannot start stops the session.
    static func start(_ movie: MovieFileOutput, in session: CaptureSession, options: RecordOptions) async throws {
        try await session.startRunning()
        do {
            if options.isSegmented {
                let names = try SegmentFileNames(pattern: options.output, usesDateFields: options.strftime)
                try await movie.startRecording(toSegments: names, overwrite: options.overwrite)
            } else {
                try await movie.startRecording(to: options.output, overwrite: options.overwrite)
            }
        } catch {
            await session.stopRunning()
            throw error
        }
    }

    /// Prints the result and gives the exit status: 0 for a playable movie that stopped as asked
    /// or at a limit, 1 otherwise, with the error on standard error.
    static func exitStatus(of result: RecordingResult?) -> Int32 {
        guard let result else { return 1 }
        print(result)
        switch result.error?.code {
        case nil, .maximumDurationReached?, .maximumFileSizeReached?, .minimumFreeDiskSpaceReached?, .sourceEnded?:
            return result.isPlayable ? 0 : 1
        default:
            standardError("movrec: \(result.error!)" + (result.isPlayable ? " (the movie was finalized up to that point)" : ""))
            return 1
        }
    }
}
