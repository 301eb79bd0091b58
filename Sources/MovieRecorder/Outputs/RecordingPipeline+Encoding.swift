import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

// The encoding thread: frames in, access units out to the writing thread, each tagged with its
// segment.
extension RecordingPipeline {
    /// Encodes every queued frame, then drains the encoder. The first frame of a segment is
    /// encoded as an IDR: x264 closes the group of pictures before it, so in decode order too
    /// every frame before the switch comes before the IDR and every frame after it after. With a
    /// segment size, places the switch at the frame that brings the segment's predicted size
    /// nearest it, a time the capture thread switches at (``SegmentSizeEstimator``, with a
    /// ``TrialEncode`` when it needs one).
    func encodeLoop() {
        var lastPresentation: Int64 = -1
        var lastOrientation: VideoOrientation?
        /// The presentation time of each segment's first frame; segment 0 starts at 0.
        var segmentStarts: [Int64] = [0]
        func segment(of sample: EncodedVideoSample) -> Int {
            (segmentStarts.lastIndex { $0 <= sample.presentationTime } ?? 0)
        }
        var size = settings.segments?.fileSize.map {
            SegmentSizeEstimator(limit: $0, audioBytesPerSecond: audioBytesPerSecond, timescale: timescale,
                                 frameDuration: tracks.video.nominalFrameDuration,
                                 keyframeInterval: settings.encoder.keyframeInterval(at: video.format.frameRate))
        }
        var trial: TrialEncode?
        defer { trial?.close() }
        var tapping = EncodedPictureTimes(tap: tap, format: tracks.video, timescale: timescale)
        do {
            frameLoop: while let item = frames.pop() {
                defer { frameEncoded() }
                let start = state.withLock { $0.videoStart } ?? item.time
                var presentation = Self.ticks(Int64(bitPattern: item.time &- start), rate: Int64(timescale))
                if presentation <= lastPresentation { presentation = lastPresentation + 1 }
                lastPresentation = presentation
                if let index = item.startsSegment {
                    while segmentStarts.count < index { segmentStarts.append(presentation) }  // never skipped, but stay aligned
                    segmentStarts.append(presentation)
                    size?.startSegment(index, at: presentation)
                }
                size?.frameIn()
                if item.orientation != lastOrientation {
                    // The orientation track turns at the first frame captured turned.
                    lastOrientation = item.orientation
                    let index = segmentStarts.lastIndex { $0 <= presentation } ?? 0
                    guard writing.push(.metadata(Self.orientationItems(item.orientation), track: Self.orientationTrack,
                                                 time: presentation, segment: index)) else { break frameLoop }
                }
                tapping.captured(presentation: presentation, at: item.time, orientation: item.orientation)
                var finished = try encoder.encode(item.frame, presentationTime: presentation, forceKeyframe: item.startsSegment != nil)
                while let sample = finished {
                    tapping.publish(sample, frameDuration: frameDurationNanoseconds)
                    size?.sampleOut(size: sample.data.count, isKeyframe: sample.isKeyframe, segment: segment(of: sample))
                    guard writing.push(.video(sample, segment: segment(of: sample))) else { break frameLoop }
                    finished = encoder.nextSample()
                }
                if size != nil { placeSizeSwitch(after: item, at: presentation, &trial, &size!) }
            }
            for sample in try encoder.flush() {
                tapping.publish(sample, frameDuration: frameDurationNanoseconds)
                guard writing.push(.video(sample, segment: segment(of: sample))) else { break }
            }
        } catch {
            fail(RecordingError(.encoderFailed, "MovieFileOutput: encoding: \(error)", underlyingError: error))
            while frames.pop() != nil {}
        }
        encoder.close()
        cameraLayoutLending?.release()
        writing.push(.videoEnded)
    }

    /// Runs the trial encode the size estimate needs, then places the switch as many frames
    /// after `item`, the newest, as the estimate says the file takes.
    private func placeSizeSwitch(after item: FrameItem, at presentation: Int64, _ trial: inout TrialEncode?,
                                 _ size: inout SegmentSizeEstimator) {
        encodeTrial(item.frame, at: presentation, &trial, &size)
        guard let ahead = size.framesBeforeSwitch(newest: presentation, queued: frames.waiting) else { return }
        // Half a frame past the last frame the file takes: the first frame at or after it starts the next.
        requestSizeSwitch(at: item.time + UInt64(ahead) * frameDurationNanoseconds + frameDurationNanoseconds / 2, from: size.segment)
    }

    /// Starts a trial encode when the size estimate needs one and feeds it `frame`; after its
    /// last frame the estimate gets its sizes. A trial that fails costs nothing but the
    /// estimate, which then waits for the encoder's own pictures.
    private func encodeTrial(_ frame: VideoFrame, at presentation: Int64, _ trial: inout TrialEncode?,
                             _ size: inout SegmentSizeEstimator) {
        do {
            if trial == nil, size.needsTrial(newest: presentation, queued: frames.waiting) {
                trial = try TrialEncode(format: video.format, timescale: timescale, settings: settings.encoder)
            }
            guard trial != nil, try trial!.take(frame, presentationTime: presentation) else { return }
            if let sizes = trial!.sizes { size.learnFromTrial(keyframe: sizes.keyframe, picture: sizes.picture) }
            trial = nil
        } catch {
            trial?.close()
            trial = nil
            MovieRecorderLogging.log(.warning, "recording", "the trial encode for the segment size failed: \(error)")
        }
    }

    /// The bytes a second of the recording's audio adds to a file: PCM's rate, AAC's bit rate.
    var audioBytesPerSecond: Double {
        guard let format = audio?.format else { return 0 }
        if aacEncoder != nil { return Double(settings.audio.aacBitRate(channelCount: Int(format.channelCount))) / 8 }
        return Double(format.bytesPerFrame) * Double(format.sampleRate)
    }
}
