import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

// The audio thread: places each buffer on the audio track's timeline, splits it where a new
// segment starts and, for AAC, encodes it (an encoder per segment), off the capture and
// writing threads.
extension RecordingPipeline {
    /// The AAC encoder `settings` ask for, for audio in `format`; nil for LPCM or no audio.
    static func makeAudioEncoder(_ settings: AudioEncoderSettings, for format: PCMFormat?) throws(EncoderError) -> AACEncoder? {
        guard let format, settings.codec == .aac else { return nil }
        return try AACEncoder(input: format, bitRate: settings.aacBitRate(channelCount: Int(format.channelCount)))
    }

    /// Buffers held back beyond this many (about two seconds of 20 ms periods) are placed even
    /// before the video has passed them: a stalled camera must not cost audio. A switch is then
    /// made at a frame after them.
    static let audioBacklog = 100

    /// What the audio thread keeps from one buffer to the next.
    struct AudioLoopState {
        var timeline: AudioTrackTimeline
        /// Buffers waiting for the video to pass them and for their pause offset (the newest 500).
        var held: [(buffer: AudioBuffer, epoch: Int)] = []
        /// The pause epoch of the last buffer placed.
        var epoch = 0
        /// The segment the audio goes to, its AAC encoder, where the encoder's first input frame
        /// sits and where its input ends (ticks from the segment's start).
        var segment = 0
        var aac: AACEncoder?
        var aacStart: Int64?
        var fedEnd: Int64 = 0
        /// The microphone clock's measurement and correction, for a device with a clock of its own.
        var clock: AudioClockCorrector?
        /// The capture time of the last drift reported.
        var driftReportedAt: UInt64?
    }

    /// What the audio thread reads of the shared state to place buffers.
    struct AudioPlacementContext {
        var videoStart: UInt64
        var videoEnd: UInt64?
        var pauseOffsets: [UInt64]
        /// The start, in ticks of the sample rate, of each segment from the audio's current one
        /// on (index `firstSegment` first): earlier ones take no more audio.
        var segmentStarts: [Int64]
        var firstSegment: Int
        /// How many of the held buffers can be placed now.
        var placeable: Int
    }

    /// Takes buffers off the audio queue until it is closed (the audio ended, the recording
    /// stopped or failed), then drains the encoder.
    func audioLoop() {
        var loop = AudioLoopState(timeline: AudioTrackTimeline(rate: audioRate), aac: aacEncoder, clock: clockCorrector)
        do {
            while let item = audioInput.pop() {
                let buffer = try follow(item.buffer, &loop)
                guard buffer.frameCount > 0 else { continue }
                loop.held.append((buffer, item.pauseEpoch))
                if loop.held.count > 500 { loop.held.removeFirst() }
                try placeHeld(&loop)
            }
            if state.withLock({ $0.failed == nil }) {
                // The frames the resampler holds back go last, with the newest buffer's pause epoch.
                if let tail = try loop.clock?.flush() { loop.held.append((tail, loop.held.last?.epoch ?? loop.epoch)) }
                try placeHeld(&loop, all: true)
                try finishAudio(&loop)
            }
        } catch {
            fail(RecordingError(.encoderFailed, "MovieFileOutput: encoding audio: \(error)", underlyingError: error))
        }
        loop.aac?.close()
        loop.clock?.close()
    }

    /// Measures the microphone's clock with `buffer` and, when correcting, resamples it to
    /// follow the system clock; publishes the drift every ten seconds of audio.
    private func follow(_ buffer: AudioBuffer, _ loop: inout AudioLoopState) throws -> AudioBuffer {
        // Mutated in place: a copy would copy the estimator's minute of points with every buffer.
        guard loop.clock != nil else { return buffer }
        let result = try loop.clock!.process(buffer)
        guard let drift = loop.clock!.estimator.drift() else { return result }
        state.withLock { $0.audioClockDrift = drift }
        if loop.driftReportedAt.map({ buffer.timestamp >= $0 + 10_000_000_000 }) ?? true {
            loop.driftReportedAt = buffer.timestamp
            onClockDrift(drift)
        }
        return result
    }

    /// Reads the state for placing and claims, under the lock, the held buffers that can go:
    /// those with a known pause offset that the video has passed (or all of them once the
    /// recording is stopping, or the oldest beyond ``audioBacklog``). Claiming moves
    /// `audioPlacedEnd`, before which no switch is made, to where each buffer will end on the
    /// timeline at the latest: its time says, or the frames placed before it (`position`) do,
    /// whichever is later, since the timeline follows the sample count and a sound card's
    /// clock drifts from the timestamps.
    private func claimHeld(_ held: [(buffer: AudioBuffer, epoch: Int)], all: Bool, from segment: Int,
                           position: Int64?) -> AudioPlacementContext? {
        state.withLock { s in
            guard let videoStart = s.videoStart else { return nil }
            let rate = UInt64(audioRate)
            var placedEnd = position.map { videoStart &+ (UInt64(max(0, $0)) * 1_000_000_000 + rate - 1) / rate } ?? 0
            var placeable = 0
            for (buffer, epoch) in held {
                guard epoch < s.pauseOffsets.count else { break }
                let length = UInt64(buffer.frameCount) * 1_000_000_000 / rate
                let end = max(buffer.timestamp &- s.pauseOffsets[epoch] &+ length, placedEnd &+ length)
                placedEnd = end
                guard all || s.videoEnd != nil || s.lastVideoTimestamp >= end || held.count - placeable > Self.audioBacklog else { break }
                s.audioPlacedEnd = max(s.audioPlacedEnd, end)
                placeable += 1
            }
            let first = min(segment, max(0, s.segments.count - 1))
            let starts = (first..<s.segments.count).map { audioStartTicks(of: $0, in: s.segments, videoStart: videoStart) }
            return AudioPlacementContext(videoStart: videoStart, videoEnd: s.videoEnd, pauseOffsets: s.pauseOffsets,
                                         segmentStarts: starts, firstSegment: first, placeable: placeable)
        }
    }

    /// Places the held buffers that can go, oldest first. Buffers of a new pause epoch go
    /// exactly where their time says until one has frames written (a buffer that lies wholly
    /// before the end of what is written is skipped).
    private func placeHeld(_ loop: inout AudioLoopState, all: Bool = false) throws {
        guard let context = claimHeld(loop.held, all: all, from: loop.segment, position: loop.timeline.position) else { return }
        for (buffer, epoch) in loop.held.prefix(context.placeable) {
            var shifted = buffer
            shifted.timestamp = buffer.timestamp &- context.pauseOffsets[epoch]
            let placement = loop.timeline.place(shifted, videoStart: context.videoStart, videoEnd: context.videoEnd,
                                                resync: epoch != loop.epoch)
            if !placement.frames.isEmpty { loop.epoch = epoch }
            try split(shifted, placement, at: context.segmentStarts, first: context.firstSegment, &loop)
        }
        loop.held.removeFirst(context.placeable)
    }

    /// Sends a placement to the segments it falls in: the silence before it and its frames,
    /// cut at each segment's start.
    private func split(_ buffer: AudioBuffer, _ placement: AudioTrackTimeline.Placement, at starts: [Int64], first: Int,
                       _ loop: inout AudioLoopState) throws {
        let framesStart = placement.startTime
        var cursor = framesStart - Int64(placement.silenceFrames)
        let end = framesStart + Int64(placement.frames.count)
        while cursor < end {
            let local = max(loop.segment - first, (starts.lastIndex { $0 <= cursor } ?? 0))
            let segment = first + local
            let pieceEnd = local + 1 < starts.count ? min(end, max(starts[local + 1], cursor + 1)) : end
            try enter(segment, segmentStart: starts[local], &loop)
            // The piece is [cursor, pieceEnd): silence up to the buffer's frames, then frames.
            let firstFrame = min(max(cursor, framesStart), pieceEnd)
            let silence = Int(firstFrame - cursor)
            let frames = (placement.frames.lowerBound + Int(firstFrame - framesStart))..<(placement.frames.lowerBound + Int(pieceEnd - framesStart))
            let piece = AudioTrackTimeline.Placement(silenceFrames: silence, startTime: firstFrame - starts[local],
                                                     frames: frames.isEmpty ? frames.lowerBound..<frames.lowerBound : frames)
            try send(buffer, piece, segmentStart: starts[local], &loop)
            cursor = pieceEnd
        }
    }

    /// Moves the audio on to `segment`: the segments before it get the end of their audio (AAC
    /// drained first), and a new AAC encoder starts.
    private func enter(_ segment: Int, segmentStart: Int64, _ loop: inout AudioLoopState) throws {
        while loop.segment < segment {
            try endSegmentAudio(&loop)
            _ = writing.push(.audioSegmentEnded(segment: loop.segment))
            loop.segment += 1
            loop.aacStart = nil
            loop.fedEnd = 0
            if loop.aac != nil {
                loop.aac?.close()
                loop.aac = try Self.makeAudioEncoder(settings.audio, for: audio?.format)
            }
        }
    }

    /// Sends one piece to the writing thread: as it is for LPCM, as the access units it
    /// completes for AAC (its silence encoded first).
    private func send(_ buffer: AudioBuffer, _ piece: AudioTrackTimeline.Placement, segmentStart: Int64,
                      _ loop: inout AudioLoopState) throws {
        if settings.eventClips != nil { sendForEventClips(buffer, piece, segmentStart: segmentStart) }
        guard let aac = loop.aac, let format = audio?.format else {
            _ = writing.push(.audioFrames(buffer, piece, segment: loop.segment))
            return
        }
        var packets: [[UInt8]] = []
        let collect: (UnsafeRawBufferPointer) -> Void = { packets.append(Array($0)) }
        if loop.aacStart == nil { loop.aacStart = piece.startTime - Int64(piece.silenceFrames) }
        if piece.silenceFrames > 0 {
            let silence = [UInt8](repeating: 0, count: piece.silenceFrames * format.bytesPerFrame)
            try silence.withUnsafeBytes { try aac.encode($0, deliver: collect) }
        }
        if !piece.frames.isEmpty {
            try buffer.bytes.withUnsafeBytes { raw in
                let bytes = (piece.frames.lowerBound * format.bytesPerFrame)..<(piece.frames.upperBound * format.bytesPerFrame)
                try aac.encode(UnsafeRawBufferPointer(rebasing: raw[bytes]), deliver: collect)
            }
        }
        loop.fedEnd = piece.startTime + Int64(piece.frames.count)
        try send(packets, &loop)
    }

    /// Sends a piece's PCM, its silence filled in, for the event clips, placed on the
    /// recording's audio timeline.
    private func sendForEventClips(_ buffer: AudioBuffer, _ piece: AudioTrackTimeline.Placement, segmentStart: Int64) {
        guard let format = audio?.format else { return }
        var bytes = [UInt8](repeating: 0, count: piece.silenceFrames * format.bytesPerFrame)
        bytes += buffer.bytes[(piece.frames.lowerBound * format.bytesPerFrame)..<(piece.frames.upperBound * format.bytesPerFrame)]
        guard !bytes.isEmpty else { return }
        let time = segmentStart + piece.startTime - Int64(piece.silenceFrames)
        _ = writing.push(.eventAudio(.init(bytes: bytes, time: time, frameCount: bytes.count / format.bytesPerFrame)))
    }

    /// Sends AAC access units of the current segment with where its audio fed so far ends.
    private func send(_ packets: [[UInt8]], _ loop: inout AudioLoopState) throws {
        guard !packets.isEmpty, let start = loop.aacStart else { return }
        _ = writing.push(.audioPackets(packets, startTime: start, end: loop.fedEnd, segment: loop.segment))
    }

    /// Drains the current segment's AAC encoder: its last access units hold the end of the audio.
    private func endSegmentAudio(_ loop: inout AudioLoopState) throws {
        guard let aac = loop.aac else { return }
        var packets: [[UInt8]] = []
        try aac.flush { packets.append(Array($0)) }
        try send(packets, &loop)
    }

    /// Drains the encoder and says the audio ended.
    private func finishAudio(_ loop: inout AudioLoopState) throws {
        try endSegmentAudio(&loop)
        _ = writing.push(.audioEnded)
    }
}
