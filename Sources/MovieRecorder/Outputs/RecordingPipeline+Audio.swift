import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

// The audio thread: places each buffer on the audio track's timeline and, for AAC, encodes it,
// off the capture and writing threads.
extension RecordingPipeline {
    /// The AAC encoder `settings` ask for, for audio in `format`; nil for LPCM or no audio.
    static func makeAudioEncoder(_ settings: AudioEncoderSettings, for format: PCMFormat?) throws(EncoderError) -> AACEncoder? {
        guard let format, settings.codec == .aac else { return nil }
        return try AACEncoder(input: format, bitRate: settings.aacBitRate(channelCount: Int(format.channelCount)))
    }

    /// What the audio thread keeps from one buffer to the next.
    struct AudioLoopState {
        var timeline: AudioTrackTimeline
        /// Buffers waiting for the first video frame, or for the first frame after their
        /// resume (the newest 500).
        var held: [(buffer: AudioBuffer, epoch: Int)] = []
        /// The pause epoch of the last buffer placed.
        var epoch = 0
        /// For AAC: where the first input frame sits, once placed.
        var aacStart: Int64?
    }

    /// Takes buffers off the audio queue until it is closed (the audio ended, the recording
    /// stopped or failed), then drains the encoder; a buffer waits until the video has started
    /// and its pause offset is known.
    func audioLoop() {
        var loop = AudioLoopState(timeline: AudioTrackTimeline(rate: audioRate))
        do {
            while let item = audioInput.pop() {
                loop.held.append((item.buffer, item.pauseEpoch))
                if loop.held.count > 500 { loop.held.removeFirst() }
                try placeHeld(&loop)
            }
            if state.withLock({ $0.failed == nil }) {
                try placeHeld(&loop)
                try finishAudio(&loop)
            }
        } catch {
            fail(RecordingError(.encoderFailed, "MovieFileOutput: encoding audio: \(error)", underlyingError: error))
        }
        aacEncoder?.close()
    }

    /// Places the held buffers whose pause offset is known, oldest first, once the video has
    /// started. Buffers of a new pause epoch go exactly where their time says until one has
    /// frames written (a buffer that lies wholly before the end of what is written is skipped).
    private func placeHeld(_ loop: inout AudioLoopState) throws {
        let (videoStart, videoEnd, offsets) = state.withLock { ($0.videoStart, $0.videoEnd, $0.pauseOffsets) }
        guard let videoStart else { return }
        var placed = 0
        for (buffer, epoch) in loop.held {
            guard epoch < offsets.count else { break }
            var shifted = buffer
            shifted.timestamp = buffer.timestamp &- offsets[epoch]
            let placement = loop.timeline.place(shifted, videoStart: videoStart, videoEnd: videoEnd, resync: epoch != loop.epoch)
            if !placement.frames.isEmpty { loop.epoch = epoch }
            try send(shifted, placement, &loop)
            placed += 1
        }
        loop.held.removeFirst(placed)
    }

    /// Sends a placed buffer to the writing thread: as it is for LPCM, as the access units it
    /// completes for AAC (overrun silence encoded first).
    private func send(_ buffer: AudioBuffer, _ placement: AudioTrackTimeline.Placement, _ loop: inout AudioLoopState) throws {
        guard let aacEncoder, let format = audio?.format else {
            _ = writing.push(.audioFrames(buffer, placement))
            return
        }
        var packets: [[UInt8]] = []
        let collect: (UnsafeRawBufferPointer) -> Void = { packets.append(Array($0)) }
        if placement.silenceFrames > 0 {
            let silence = [UInt8](repeating: 0, count: placement.silenceFrames * format.bytesPerFrame)
            try silence.withUnsafeBytes { try aacEncoder.encode($0, deliver: collect) }
        }
        if !placement.frames.isEmpty {
            if loop.aacStart == nil { loop.aacStart = placement.startTime }
            try buffer.bytes.withUnsafeBytes { raw in
                let bytes = (placement.frames.lowerBound * format.bytesPerFrame)..<(placement.frames.upperBound * format.bytesPerFrame)
                try aacEncoder.encode(UnsafeRawBufferPointer(rebasing: raw[bytes]), deliver: collect)
            }
        }
        try send(packets, &loop)
    }

    /// Sends AAC access units to the writing thread with where the audio fed so far ends.
    private func send(_ packets: [[UInt8]], _ loop: inout AudioLoopState) throws {
        guard !packets.isEmpty, let start = loop.aacStart, let end = loop.timeline.position else { return }
        _ = writing.push(.audioPackets(packets, startTime: start, end: end))
    }

    /// Drains the AAC encoder (its last access units hold the end of the audio) and says the
    /// audio ended.
    private func finishAudio(_ loop: inout AudioLoopState) throws {
        if let aacEncoder {
            var packets: [[UInt8]] = []
            try aacEncoder.flush { packets.append(Array($0)) }
            try send(packets, &loop)
        }
        _ = writing.push(.audioEnded)
    }
}
