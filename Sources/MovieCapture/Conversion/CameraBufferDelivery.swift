import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// What happens to a camera buffer after it is dequeued, for a V4L2 device and for a replay of
/// recorded buffers alike: sequence gaps counted as drops, damaged buffers skipped, I420 and NV12
/// lent to frames without a copy (with the buffer's DMA-BUF when the driver exports it, for a
/// hardware encoder to import), every other format converted into a pooled I420 buffer.
///
/// The conversion runs on the capture thread, right after the dequeue, and the driver's buffer
/// goes back as soon as it is done, so a buffer is never held longer than one conversion (well
/// under a frame interval: about 0.1 ms for 720p YUYV, a few for a 1080p JPEG). It never waits for
/// the encoder: a live source whose pool is exhausted (every converted picture still queued for
/// the outputs) drops the frame and counts it; a replay, which is not live, waits for a buffer.
/// While a recording's encoder takes the camera's YUYV or UYVY (`nativePictures` on), those are
/// lent as I420 and NV12 are instead, held until the frame is released, and converted only if
/// something reads the planes.
package final class CameraBufferDelivery: Sendable {
    private let width: Int
    private let height: Int
    private let bytesPerLine: Int
    private let direct: PixelFormat?
    private let native: V4L2PixelFormat
    private let converter: LockedValue<CameraPictureConverter?>
    private let pool: PixelBufferPool?
    private let live: Bool
    private let device: String
    private let nativePictures: NativePictureSwitch?
    private let lastSequence = LockedValue<UInt32?>(nil)
    private let holdTimes = LockedValue(ConversionStatistics())
    /// The format of the frames delivered: I420 unless NV12 passes through.
    package let frameFormat: PixelFormat
    /// How the converted samples are encoded, when the conversion decides it (MJPEG, RGB).
    package let color: ColorDescription?

    /// - Parameters:
    ///   - bytesPerLine: the driver's row length (0: tightly packed).
    ///   - descriptor: the device's descriptor for libv4lconvert, or -1.
    ///   - live: drop a frame when no pooled buffer is free (a camera), or wait for one (a replay).
    ///   - poolCount: converted pictures that may be out at once.
    ///   - nativePictures: while on, YUYV and UYVY buffers are lent as they are (planes made on
    ///     demand) instead of converted.
    package convenience init(pixelFormat: V4L2PixelFormat, width: Int, height: Int, bytesPerLine: Int, descriptor: Int32,
                             device: String, live: Bool, poolCount: Int) throws(DeviceError) {
        try self.init(pixelFormat: pixelFormat, width: width, height: height, bytesPerLine: bytesPerLine, descriptor: descriptor,
                      device: device, live: live, poolCount: poolCount, nativePictures: nil)
    }

    package init(pixelFormat: V4L2PixelFormat, width: Int, height: Int, bytesPerLine: Int, descriptor: Int32,
                 device: String, live: Bool, poolCount: Int, nativePictures: NativePictureSwitch?) throws(DeviceError) {
        self.nativePictures = NativePicture.lendable.contains(pixelFormat) ? nativePictures : nil
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine > 0 ? bytesPerLine : CameraPictureConverter.packedBytesPerLine(pixelFormat, width: width)
        self.live = live
        self.device = device
        direct = pixelFormat.directPixelFormat
        native = pixelFormat
        frameFormat = direct ?? .i420
        color = CameraPictureConverter.color(for: pixelFormat)
        if direct == nil {
            let converter = try CameraPictureConverter(pixelFormat: pixelFormat, width: width, height: height,
                                                       bytesPerLine: bytesPerLine, descriptor: descriptor, device: device)
            self.converter = LockedValue(converter)
            pool = PixelBufferPool(bufferSize: PixelFormat.i420.byteCount(width: width, height: height), count: poolCount)
        } else {
            converter = LockedValue(nil)
            pool = nil
        }
    }

    /// Hold times of the converted buffers so far.
    package var statistics: ConversionStatistics { holdTimes.withLock { $0 } }

    /// Delivers one dequeued buffer. `holder` gives the buffer back to its owner when released:
    /// right after a conversion, or when the last frame lent the buffer lets go.
    package func deliver(_ buffer: DequeuedBuffer, holder: consuming (any Sendable)?, run: CaptureRun,
                         handler: @Sendable (VideoSourceEvent) -> Void) {
        let previous = lastSequence.withLock { last in defer { last = buffer.sequence }; return last }
        if let previous {
            let gap = buffer.sequence &- previous &- 1
            if gap > 0 && gap < 1_000_000 { handler(.dropped(count: Int(gap))) }
        }
        if buffer.isError {
            holder = nil
            return handler(.corrupted)
        }
        if let direct {
            return lend(buffer, format: direct, holder: holder, handler: handler)
        }
        if nativePictures?.isOn == true {
            return lendNative(buffer, holder: holder, handler: handler)
        }
        guard let pool, let lease = pool.lease(live: live, run: run) else {
            holder = nil
            if live { handler(.dropped(count: 1)) }
            return
        }
        // Held from here: a live source never waits for the lease; a replay may, and that wait
        // is the outputs being busy, not the conversion.
        let leased = MonotonicClock.now()
        let destination = I420Destination(packed: lease.base, width: width, height: height)
        let outcome = converter.withLock { $0!.convert(buffer.bytes, into: destination) }
        holder = nil  // back to the driver before the frame goes anywhere
        holdTimes.withLock { $0.add(MonotonicClock.now() &- leased) }
        if case .corrupt(let reason) = outcome {
            // Said once per stream at warning level, then at debug: a damaged stream can be
            // damaged in every picture.
            let first = holdTimes.withLock { s in
                s.corruptCount += 1
                s.lastCorruption = reason
                return s.corruptCount == 1
            }
            MovieRecorderLogging.log(first ? .warning : .debug, "camera", "\(device): a picture was left out: \(reason)")
            return handler(.corrupted)
        }
        handler(.frame(VideoFrame(packed: lease.base, width: width, height: height, pixelFormat: .i420,
                                  timestamp: buffer.timestamp, sequenceNumber: UInt64(buffer.sequence), storage: lease)))
    }

    /// A packed YUYV or UYVY picture lent to the frame as it is; its I420 planes are converted
    /// when first read (into a pooled buffer, or memory of their own when none is free).
    private func lendNative(_ buffer: DequeuedBuffer, holder: consuming (any Sendable)?,
                            handler: @Sendable (VideoSourceEvent) -> Void) {
        guard let storage = holder, let base = buffer.bytes.baseAddress, buffer.bytes.count >= bytesPerLine * height else {
            holder = nil
            return handler(.corrupted)
        }
        let native = NativePicture(pixelFormat: self.native, base: base, bytesPerLine: bytesPerLine, bytesUsed: buffer.bytes.count)
        let exported = export(of: buffer, bytesPerLine: bytesPerLine)
        let (width, height, converter, pool) = (self.width, self.height, self.converter, self.pool)
        let bytes = UnsafeRawBufferPointerBox(buffer.bytes)
        handler(.frame(VideoFrame(width: width, height: height, timestamp: buffer.timestamp, sequenceNumber: UInt64(buffer.sequence),
                                  native: native, exportedPicture: exported, storage: storage) {
            let memory: any Sendable
            let target: UnsafeMutableRawPointer
            if let lease = pool?.lease() {
                (memory, target) = (lease, lease.base)
            } else {
                let owned = OwnedPictureMemory(byteCount: PixelFormat.i420.byteCount(width: width, height: height))
                (memory, target) = (owned, owned.base)
            }
            let outcome = converter.withLock { $0?.convert(bytes.buffer, into: I420Destination(packed: target, width: width, height: height)) }
            if outcome != .converted {
                // A packed 4:2:2 picture always converts; should it not, the planes are grey, never stale memory.
                memset(target, 128, PixelFormat.i420.byteCount(width: width, height: height))
                MovieRecorderLogging.log(.warning, "camera", "a lent picture could not be converted: \(String(describing: outcome))")
            }
            return (VideoFrame.packedPlanes(target, width: width, height: height, pixelFormat: .i420), memory)
        }))
    }

    /// I420 or NV12 as the driver laid it out, rows padded to its `bytesPerLine`, lent to the frame.
    private func lend(_ buffer: DequeuedBuffer, format: PixelFormat, holder: consuming (any Sendable)?,
                      handler: @Sendable (VideoSourceEvent) -> Void) {
        let stride = max(bytesPerLine, width)
        let chroma = (height + 1) / 2
        guard buffer.bytes.count >= stride * height + stride * chroma, let base = buffer.bytes.baseAddress,
              let storage = holder else {
            holder = nil
            return handler(.corrupted)
        }
        let y = PlaneView(baseAddress: base, bytesPerRow: stride, height: height)
        let planes: [PlaneView] = switch format {
        case .i420:
            [y, PlaneView(baseAddress: base + stride * height, bytesPerRow: stride / 2, height: chroma),
             PlaneView(baseAddress: base + stride * height + (stride / 2) * chroma, bytesPerRow: stride / 2, height: chroma)]
        case .nv12:
            [y, PlaneView(baseAddress: base + stride * height, bytesPerRow: stride, height: chroma)]
        }
        let exported = export(of: buffer, bytesPerLine: stride)
        handler(.frame(VideoFrame(width: width, height: height, pixelFormat: format, timestamp: buffer.timestamp,
                                  sequenceNumber: UInt64(buffer.sequence), planes: planes, storage: storage,
                                  exportedPicture: exported)))
    }

    /// The buffer as the DMA-BUF its driver exported, for a hardware encoder to import; nil when
    /// it exported none.
    private func export(of buffer: DequeuedBuffer, bytesPerLine: Int) -> ExportedPicture? {
        guard buffer.exportDescriptor >= 0 else { return nil }
        return ExportedPicture(descriptor: buffer.exportDescriptor, pixelFormat: native, bytesPerLine: bytesPerLine,
                               bytesUsed: buffer.bytes.count, length: max(buffer.length, buffer.bytes.count))
    }
}
