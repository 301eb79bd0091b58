import MovieContainer
import MoviePlatform

/// The loop of a ``CameraReplaySource``: finds each picture in the file, maps it as a driver's
/// buffer and hands it to the delivery the V4L2 capture loop uses.
struct ReplayReader: Sendable {
    let file: RandomAccessFile
    let path: String
    /// Bytes a picture takes, or `nil` for Motion JPEG.
    let pictureSize: Int?
    let budget: MappingBudget
    let timeline: FrameRate

    func run(_ run: CaptureRun, delivery: CameraBufferDelivery, handler: @escaping @Sendable (VideoSourceEvent) -> Void) {
        let clock = CaptureTimeline(start: MonotonicClock.now(), count: UInt64(timeline.frames), seconds: UInt64(timeline.seconds))
        var scanner = MJPEGFrameScanner(file: file)
        var offset: UInt64 = 0
        var sequence: UInt32 = 0
        run.wakeOnStop(budget.changed)
        while !run.isStopRequested {
            let picture: (offset: UInt64, count: Int)
            do {
                guard let next = try nextPicture(at: offset, scanner: &scanner) else { return run.finish { handler(.ended) } }
                if next.skipped { handler(.corrupted) }
                picture = (next.offset, next.count)
            } catch {
                return run.finish { handler(.interrupted(InterruptionReason(source: path, message: "reading picture \(sequence) failed: \(error)"))) }
            }
            guard budget.take(unless: { run.isStopRequested }) else { return }
            guard let region = file.map(at: picture.offset, count: picture.count, budget: budget) else {
                budget.giveBack()
                return run.finish { handler(.interrupted(InterruptionReason(source: path, message: "mapping picture \(sequence) at byte \(picture.offset) failed; the file must be a regular file"))) }
            }
            let buffer = DequeuedBuffer(bytes: UnsafeRawBufferPointer(start: region.base, count: region.count),
                                        sequence: sequence, timestamp: clock.time(of: UInt64(sequence)))
            delivery.deliver(buffer, holder: region, run: run, handler: handler)
            offset = picture.offset + UInt64(picture.count)
            sequence &+= 1
        }
    }

    /// The picture at `offset`: a fixed-size one (a last one cut short is left out), or the next
    /// JPEG.
    private func nextPicture(at offset: UInt64, scanner: inout MJPEGFrameScanner) throws -> (offset: UInt64, count: Int, skipped: Bool)? {
        guard let pictureSize else { return try scanner.nextPicture(from: offset) }
        guard offset + UInt64(pictureSize) <= file.size else { return nil }
        return (offset, pictureSize, false)
    }
}
