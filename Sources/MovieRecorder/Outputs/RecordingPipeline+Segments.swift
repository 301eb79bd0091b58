import MovieContainer
import MoviePlatform
import MovieCapture

// Switching files: when a switch is made (under the pipeline's lock, as a frame is admitted)
// and where each segment starts on the tracks' timelines.
extension RecordingPipeline {
    /// A segment starting with the frame at `time`, with the counters as they are now.
    func segmentStart(path: String, file: RandomAccessFile?, overwrite: Bool, orientation: VideoOrientation,
                      time: UInt64, in s: State) -> SegmentStart {
        SegmentStart(path: path, file: file, overwrite: overwrite, orientation: orientation, time: time,
                     unixSeconds: Int64(SystemClock.unixSeconds()), dropped: s.dropped, plannedDropped: s.plannedDropped, corrupted: s.corrupted, overruns: s.overruns)
    }

    /// Makes the pending switch, or an automatic one that is due, at the frame at `time` when no
    /// audio has been placed past it; returns the new segment's index.
    func switchSegment(at time: UInt64, in s: inout State) -> Int? {
        if s.pendingSwitch == nil, let segmenting = settings.segments, isAutomaticSwitchDue(at: time, segmenting, in: s) {
            s.pendingSwitch = automaticSwitch(segmenting, in: s)
        }
        guard let request = s.pendingSwitch, time >= s.audioPlacedEnd else { return Int?.none }
        s.pendingSwitch = nil
        s.segments.append(segmentStart(path: request.path, file: request.file, overwrite: request.overwrite,
                                       orientation: request.orientation, time: time, in: s))
        return s.segments.count - 1
    }

    /// Whether the frame at `time` is at or after the current segment's duration, or the time
    /// the encoding thread placed its switch by size at.
    private func isAutomaticSwitchDue(at time: UInt64, _ segmenting: Segmenting, in s: State) -> Bool {
        guard let current = s.segments.last else { return false }
        if let duration = segmenting.duration, Self.duration(nanoseconds: time &- current.time) >= duration { return true }
        guard let bySize = s.sizeSwitch, bySize.segment == s.segments.count - 1 else { return false }
        return time >= bySize.time
    }

    /// The next automatic segment: the next name (with a number added when the pattern gives a
    /// name this recording has used, as a date pattern coarser than the segments does), the
    /// current orientation.
    func automaticSwitch(_ segmenting: Segmenting, in s: State) -> SwitchRequest {
        var path = segmenting.names.path(index: s.segments.count, unixSeconds: Int64(SystemClock.unixSeconds()))
        let used = Set(s.segments.map(\.path))
        if used.contains(path) {
            let dot = path.lastIndex(of: ".").flatMap { path[$0...].contains("/") ? nil : $0 } ?? path.endIndex
            var number = 2
            while used.contains(String(path[..<dot]) + "-\(number)" + String(path[dot...])) { number += 1 }
            path = String(path[..<dot]) + "-\(number)" + String(path[dot...])
        }
        return SwitchRequest(path: path, file: nil, overwrite: settings.overwrite, orientation: s.orientation)
    }

    /// Asks for a switch to `request`'s file at the next frame (``MovieFileOutput``'s
    /// `startRecording(to:)` while recording).
    /// - Returns: nil when asked; otherwise why it cannot be (the recording is stopping, or
    ///   another switch is waiting).
    func requestSwitch(_ request: SwitchRequest) -> RecordingError? {
        state.withLock { s in
            guard !s.stopping, s.failed == nil else {
                return RecordingError(.notConnected, "MovieFileOutput: the recording is stopping; start a new one after it has finished")
            }
            guard s.pendingSwitch?.file == nil else {
                return RecordingError(.alreadyRecording, "MovieFileOutput: a switch to \(s.pendingSwitch!.path) is already waiting for the next frame")
            }
            s.pendingSwitch = request
            return nil
        }
    }

    /// Places segment `index`'s switch by size at the first frame at or after `time`
    /// (nanoseconds, pauses taken out): the encoding thread's prediction, refined at every
    /// frame. Only the newest segment started switches: an older one still being encoded (the
    /// encoder's delay) has already been switched from.
    func requestSizeSwitch(at time: UInt64, from index: Int) {
        state.withLock { s in
            guard !s.stopping, index == s.segments.count - 1 else { return }
            s.sizeSwitch = (index, time)
        }
    }

    /// Where segment `index` starts, in video ticks from the recording's start.
    func videoStartTicks(of index: Int, in segments: [SegmentStart], videoStart: UInt64) -> Int64 {
        index == 0 ? 0 : Self.ticks(Int64(segments[index].time &- videoStart), rate: Int64(timescale))
    }

    /// Where segment `index` starts, in audio ticks from the recording's start: its video start
    /// in audio ticks, so the audio is split exactly where the video switches.
    func audioStartTicks(of index: Int, in segments: [SegmentStart], videoStart: UInt64) -> Int64 {
        audioTicks(videoTicks: videoStartTicks(of: index, in: segments, videoStart: videoStart))
    }

    /// Video ticks as audio ticks (rounded down), the one conversion every split and cut uses.
    func audioTicks(videoTicks: Int64) -> Int64 { videoTicks * audioRate / Int64(timescale) }

    var audioRate: Int64 { Int64(audio?.format.sampleRate ?? 1) }
}
