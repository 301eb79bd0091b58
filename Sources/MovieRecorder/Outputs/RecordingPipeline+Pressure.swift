import MoviePlatform
import MovieCapture

// Under pressure: the recording reports its lag to the session, and with
// `degradesUnderPressure` steps its frame rate evenly (a live view giving way first) and
// finishes before a thermal shutdown.
extension RecordingPipeline {
    /// Keeps the divisor at or above what heat and power allow now: 2 from a serious thermal
    /// level; finishes the recording from critical (past a zone's hot trip point, or within
    /// 5 °C of its critical one).
    func followThermalFloor() {
        guard settings.degradesUnderPressure, let pressure else { return }
        let level = pressure.thermalLevel
        if level >= .critical { finishBeforeShutdown(pressure) }
        let floor = level >= .serious ? 2 : 1
        let now = MonotonicClock.now()
        let stepped: Int? = state.withLock { s in
            s.pressureFloor = floor
            return s.governor.divisor < floor ? s.governor.stepUp(at: now, floor: floor, anchor: s.arrivals) : nil
        }
        if let stepped {
            let reason = pressure.current.factors.intersection([.systemTemperature, .peakPower])
            pressure.recording(ObjectIdentifier(self), changed: .recordingFrameRate(divisor: stepped), reason: reason)
        }
    }

    /// A frame was lost or left the queue with room for one more: the session hears of the
    /// lag, and a live view gives way. The recording's own frame rate steps only when a frame
    /// would be lost (``overflowed(_:)``).
    func fellBehind() {
        let now = MonotonicClock.now()
        pressure?.noteLag(at: now)
        guard state.withLock({ $0.governor.lagged(at: now) }) == .relieve else { return }
        _ = pressure?.shedExtra(reason: .recordingLag)
    }

    /// The queue's usual room was full when `item` came. With a step left, it is taken at once.
    /// From every frame to every second, the queued frames are thinned to the new step from the
    /// oldest on, which makes room at once with every interval two frames. From every second
    /// to every third, frames two apart cannot be thinned to three apart without a six-frame
    /// hole, so they stay, the new step counts from `item`, and `item` goes into the queue's
    /// reserve, as every frame that finds the room full at the deepest step does.
    /// Extras are not asked first here: their relief would come too late for this frame.
    func overflowed(_ item: FrameItem) -> FrameOutcome {
        let now = MonotonicClock.now()
        let (enabled, current) = state.withLock { ($0.governor.isEnabled, $0.governor.divisor) }
        guard enabled else { return .lost }
        guard current < FrameRateGovernor.deepest else { return keepInReserve(item) }
        let next = current + 1
        var anchor = item.sequence
        let thinned = current > 1 ? 0 : frames.thin { oldest, queued in
            anchor = oldest.sequence
            return queued.startsSegment != nil || (queued.sequence - oldest.sequence) % next == 0
        }
        let (stepped, keeps): (Int?, Bool) = state.withLock { s in
            let stepped = s.governor.overflowed(at: now, anchor: anchor)
            if !s.stopping {
                s.dropped += thinned
                s.plannedDropped += thinned
            }
            return (stepped, s.governor.keeps(item.sequence))
        }
        if let stepped {
            pressure?.recording(ObjectIdentifier(self), changed: .recordingFrameRate(divisor: stepped), reason: .recordingLag)
            MovieRecorderLogging.log(.notice, "recording", "behind: keeping one frame in \(stepped), \(thinned) queued frames left out")
        }
        guard keeps else { return .leftOut }
        return frames.offer(item, limit: Self.liveFrameLimit) ? .queued : keepInReserve(item)
    }

    /// Puts a copy of `item` into the queue's reserve, the room past ``liveFrameLimit``: the
    /// encoder's stalls (x264 filling its lookahead at a slow preset takes over half a second)
    /// then cost no frame while a step takes hold, and the camera's buffers stay free. Lost
    /// only when the reserve too is full.
    private func keepInReserve(_ item: FrameItem) -> FrameOutcome {
        let format = video.format
        let reserve = frameReserve.withLock { pool in
            let made = pool ?? PixelBufferPool(bufferSize: format.pixelFormat.byteCount(width: format.width, height: format.height),
                                               count: frames.capacity)
            pool = made
            return made
        }
        guard let copy = item.frame.copied(into: reserve) else { return .lost }
        var owned = item
        owned.frame = copy
        return frames.offer(owned) ? .queued : .lost
    }

    /// The encoding thread encoded a frame: with room to spare, a step is given back.
    func frameEncoded() {
        let now = MonotonicClock.now()
        let cpu = pressure?.cpuUsage
        let action = state.withLock { $0.governor.evaluate(at: now, cpu: cpu, floor: $0.pressureFloor, sequence: $0.arrivals) }
        switch action {
        case .stepDown(let divisor)?:
            pressure?.recording(ObjectIdentifier(self), changed: .recordingFrameRate(divisor: divisor), reason: [])
        case .restoreExtra?:
            _ = pressure?.restoreExtra()
        case .relieve?, nil:
            break
        }
    }

    /// Finishes the movie while it can still be finished: a thermal zone is close to its
    /// critical trip point, where the kernel powers off.
    private func finishBeforeShutdown(_ pressure: PressureCoordinator) {
        let first = state.withLock { !$0.stopping }
        guard first else { return }
        beginStop(reason: RecordingError(.systemPressureShutdown, "MovieFileOutput: the system is about to shut down "
            + "(\(pressure.current)); the movie was finished before it does"))
        pressure.recording(ObjectIdentifier(self), changed: .recordingFinished, reason: pressure.current.factors)
    }

    /// The recording is over: its steps no longer count in the session's pressure.
    func leavePressure() {
        pressure?.recording(ObjectIdentifier(self), changed: nil, reason: [])
    }
}
