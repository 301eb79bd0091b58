import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

extension PhotoOutput {
    /// Captures a photo as a JPEG file at `path`, or a HEIF file with ``PhotoCodec/hevc``.
    ///
    /// The frame is the one captured closest to the moment of the call with zero shutter lag
    /// (``isZeroShutterLagEnabled``), else the next frame; from a file, the next frame read, in
    /// request order, none skipped. The orientation is the output's
    /// rotation angle and mirroring when the call is made: a JPEG's Exif `Orientation`, a HEIF
    /// image's `irot` and `imir` properties. The pixels are stored as captured, so
    /// ``PhotoResult/width`` and ``PhotoResult/height`` are the frame's. `DateTimeOriginal` is
    /// the local time the frame was chosen. The file appears complete or not at all: it is
    /// written under a hidden name, flushed to disk and renamed.
    ///
    /// Calls may overlap: with ``isResponsiveCaptureEnabled`` up to ``responsiveCaptureLimit``
    /// photos are encoded at once, otherwise a call waits for the photo before it. Either way the
    /// calls return, and ``events`` reports, in the order they were made. With
    /// ``isAutoDeferredPhotoDeliveryEnabled`` the call returns a proxy (``PhotoResult/isProxy``).
    /// - Parameters:
    ///   - path: Where to write; its directory must exist.
    ///   - overwrite: Replace an existing file; without it an existing file is an error.
    ///   - settings: The codec, quality, prioritization, thumbnail, make and model.
    /// - Returns: The file's path, size, orientation and the frame it took.
    /// - Throws: `PhotoError`: not connected to a running session with a video input
    ///   (`PhotoError.Code.notConnected`), no frame within ``frameTimeout``
    ///   (`PhotoError.Code.timedOut`), settings out of range or a compression failure
    ///   (`PhotoError.Code.encodingFailed`), the file exists (`PhotoError.Code.fileExists`)
    ///   or cannot be written (`PhotoError.Code.fileError`). `CancellationError` when the
    ///   task is cancelled while waiting for a slot among the photos in flight or for the frame.
    public func capturePhoto(to path: String, overwrite: Bool = false,
                             settings: PhotoSettings = PhotoSettings()) async throws -> PhotoResult {
        let moment = MonotonicClock.now()
        let snapshot = state.withLock { s in
            (video: s.sources?.video, orientation: (try? VideoOrientation(rotationAngle: s.angle, isMirrored: s.mirrored)) ?? .up,
             make: settings.make ?? s.make, model: settings.model ?? s.model,
             zeroShutterLag: s.zeroShutterLag && s.sources?.video?.isLive == true, deferred: s.deferred,
             isLive: s.sources?.video?.isLive == true)
        }
        do {
            if let problem = settings.problem { throw PhotoError(.encodingFailed, "PhotoOutput: \(problem)") }
            guard snapshot.video != nil else { throw Self.notConnected }
        } catch {
            mutate { Self.setPhase(nil, of: settings.uniqueID, in: &$0) }
            throw error
        }
        let request = registerRequest(at: moment, zeroShutterLag: snapshot.zeroShutterLag, isLive: snapshot.isLive,
                                      uniqueID: settings.uniqueID)
        // The order of admission is the order of the results; an existing file is refused when
        // the photo is put in place (atomically), not by a check before.
        let admission: PhotoSlots.Admission
        do {
            admission = try await admit(settings.uniqueID)
        } catch {
            withdrawRequest(request)
            throw error
        }
        do {
            let chosen = try await chooseFrame(request)
            let speedUp = mutate { s in
                Self.setPhase(nil, of: settings.uniqueID, in: &s)
                return s.fastPrioritization && admission.crowded
            }
            let job = PhotoJob(frame: chosen.frame, settings: settings,
                               prioritization: speedUp ? .speed : settings.qualityPrioritization,
                               orientation: snapshot.orientation, make: snapshot.make,
                               model: snapshot.model ?? snapshot.video?.name, path: path, overwrite: overwrite,
                               moment: moment, fromRing: chosen.fromRing, unixSeconds: chosen.unixSeconds)
            return try await snapshot.deferred ? deliverDeferred(job, admission.ticket) : deliver(job, admission.ticket)
        } catch {
            withdrawRequest(request)
            await abandon(admission.ticket, settings.uniqueID, path, error)
            throw error
        }
    }

    /// Encodes and writes the photo, then returns it in its turn.
    private func deliver(_ job: PhotoJob, _ ticket: UInt64) async throws -> PhotoResult {
        let result = try await runOnDedicatedThread(name: "movrec-photo") { () throws(PhotoError) in
            try job.writeFinal(replacing: job.overwrite)
        }
        await waitForTurn(.returning, ticket)
        eventContinuation.yield(.didCapturePhoto(result))
        passTurn(.returning, ticket)
        // Its slot is free once the photos before it are reported too.
        Task { await self.report(nil, ticket) }
        return result
    }

    /// Writes the proxy and returns it in its turn; the full photo follows on its own task,
    /// once the session's recordings are not under pressure (at most a minute later).
    private func deliverDeferred(_ job: PhotoJob, _ ticket: UInt64) async throws -> PhotoResult {
        let proxy = try await runOnDedicatedThread(name: "movrec-photo") { () throws(PhotoError) in try job.writeProxy() }
        let pressure = state.withLock { $0.sources?.pressure }
        Task {
            await pressure?.waitForRelief(atMost: .seconds(60))
            let event: Event
            do {
                let final = try await runOnDedicatedThread(name: "movrec-photo") { () throws(PhotoError) in
                    try job.writeFinal(replacing: true)
                }
                event = .didFinishDeferredPhoto(final)
            } catch {
                event = .didFailDeferredPhoto(uniqueID: job.settings.uniqueID, path: job.path, error: Self.photoError(error))
            }
            await self.report(event, ticket)
        }
        await waitForTurn(.returning, ticket)
        eventContinuation.yield(.didCapturePhoto(proxy))
        passTurn(.returning, ticket)
        return proxy
    }

    /// Ends a failed request in its returning turn, where its failure is reported as a success
    /// would be; its slot is free once the photos before it are reported too.
    private func abandon(_ ticket: UInt64, _ uniqueID: Int64, _ path: String, _ error: any Error) async {
        mutate { Self.setPhase(nil, of: uniqueID, in: &$0) }
        await waitForTurn(.returning, ticket)
        eventContinuation.yield(.didFailPhoto(uniqueID: uniqueID, path: path, error: Self.photoError(error)))
        passTurn(.returning, ticket)
        Task { await self.report(nil, ticket) }
    }

    static func photoError(_ error: any Error) -> PhotoError {
        if let error = error as? PhotoError { return error }
        if error is CancellationError { return PhotoError(.notConnected, "PhotoOutput: the request was cancelled before its frame was chosen") }
        return PhotoError(.fileError, "PhotoOutput: \(error)")
    }

    static func fileExists(_ path: String) -> PhotoError {
        PhotoError(.fileExists, "PhotoOutput: \(path) exists; choose another name, or pass overwrite: true")
    }
}
