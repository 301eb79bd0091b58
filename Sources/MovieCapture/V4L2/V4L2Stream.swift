import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
internal import CV4L2

/// One streaming session of a V4L2 camera: its format, its memory-mapped buffers and the
/// capture loop.
///
/// Each dequeued buffer goes to a ``CameraBufferDelivery``: lent to frames when the encoder takes
/// its format (queued again when the last frame holding it is released; exported as a DMA-BUF
/// too where the driver allows, for a hardware encoder to import), else converted and queued
/// again at once. The mappings and the device stay open until no frame holds a buffer,
/// even after capture stops.
package final class V4L2Stream: @unchecked Sendable {
    // @unchecked: the format is used by the capture thread only; the buffer bookkeeping is
    // guarded by `lending`.
    private let device: V4L2Device
    private let mappings: [(pointer: UnsafeMutableRawPointer, length: Int)]
    /// Each buffer as a DMA-BUF for a hardware encoder to import, when the driver exports them
    /// and the pictures may be lent (I420, NV12, and YUYV, UYVY, lent while a recording asks);
    /// closed with the mappings.
    private let exports: [Int32]
    private let delivery: CameraBufferDelivery
    private let lending = LockedValue<(outstanding: Int, closing: Bool, closed: Bool)>((0, false, false))

    package static let bufferCount: UInt32 = 6

    package init(camera: V4L2Camera) throws(DeviceError) {
        let path = camera.device.path
        let dev = try V4L2Device(path: path)
        var mapped: [(UnsafeMutableRawPointer, Int)] = []
        var exported: [Int32] = []
        let delivery: CameraBufferDelivery
        do throws(DeviceError) {
            var fmt = v4l2_format()
            fmt.type = UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            fmt.fmt.pix.width = UInt32(camera.format.width)
            fmt.fmt.pix.height = UInt32(camera.format.height)
            fmt.fmt.pix.pixelformat = camera.nativePixelFormat.rawValue
            fmt.fmt.pix.field = V4L2_FIELD_NONE.rawValue
            try dev.ioctl(CV4L2_VIDIOC_S_FMT(), &fmt, step: "setting the format (VIDIOC_S_FMT)")
            guard Int(fmt.fmt.pix.width) == camera.format.width, Int(fmt.fmt.pix.height) == camera.format.height,
                  fmt.fmt.pix.pixelformat == camera.nativePixelFormat.rawValue else {
                throw DeviceError(.unsupportedFormat, device: path, step: "setting the format",
                                  detail: "the driver gave \(fmt.fmt.pix.width)x\(fmt.fmt.pix.height) \(V4L2PixelFormat(rawValue: fmt.fmt.pix.pixelformat)) instead of \(camera.format.width)x\(camera.format.height) \(camera.nativePixelFormat)")
            }
            // The interval defaults to the driver's own after S_FMT (vivid: 1/5 s): set it.
            var parm = v4l2_streamparm()
            parm.type = UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            parm.parm.capture.timeperframe = v4l2_fract(numerator: camera.format.frameRate.seconds,
                                                        denominator: camera.format.frameRate.frames)
            _ = dev.ioctl(CV4L2_VIDIOC_S_PARM(), &parm)  // optional for drivers without rate control

            var request = v4l2_requestbuffers()
            request.count = Self.bufferCount
            request.type = UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            request.memory = UInt32(V4L2_MEMORY_MMAP.rawValue)
            try dev.ioctl(CV4L2_VIDIOC_REQBUFS(), &request, step: "requesting buffers (VIDIOC_REQBUFS)")
            guard request.count >= 4 else {
                throw DeviceError(.failed, device: path, step: "requesting buffers", detail: "the driver granted only \(request.count) buffers; at least 4 are needed")
            }
            for index in 0..<request.count {
                var buffer = v4l2_buffer()
                buffer.index = index
                buffer.type = UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
                buffer.memory = UInt32(V4L2_MEMORY_MMAP.rawValue)
                try dev.ioctl(CV4L2_VIDIOC_QUERYBUF(), &buffer, step: "querying buffer \(index)")
                let length = Int(buffer.length)
                guard let pointer = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, dev.fd, Int64(buffer.m.offset)),
                      CV4L2_map_failed(pointer) == 0 else {
                    throw DeviceError.v4l2(errno, device: path, step: "mapping buffer \(index)")
                }
                mapped.append((pointer, length))
                try dev.ioctl(CV4L2_VIDIOC_QBUF(), &buffer, step: "queueing buffer \(index)")
            }
            if camera.nativePixelFormat.directPixelFormat != nil || NativePicture.lendable.contains(camera.nativePixelFormat) {
                exported = Self.export(dev, count: Int(request.count))
            }
            // Six pooled pictures: one being converted, the rest queued for the outputs.
            delivery = try CameraBufferDelivery(pixelFormat: camera.nativePixelFormat, width: camera.format.width,
                                                height: camera.format.height, bytesPerLine: Int(fmt.fmt.pix.bytesperline),
                                                descriptor: dev.fd, device: path, live: true, poolCount: 6,
                                                nativePictures: camera.nativePictures)
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            try dev.ioctl(CV4L2_VIDIOC_STREAMON(), &type, step: "starting the stream (VIDIOC_STREAMON)")
        } catch {
            for (pointer, length) in mapped { _ = v4l2_munmap(pointer, length) }
            for descriptor in exported { Glibc.close(descriptor) }
            dev.close()
            throw error
        }
        device = dev
        mappings = mapped
        exports = exported
        self.delivery = delivery
    }

    /// Exports every buffer as a DMA-BUF (`VIDIOC_EXPBUF`); none when the driver refuses any
    /// (it lacks the ioctl, or its memory cannot be shared), so frames then carry no export.
    private static func export(_ device: V4L2Device, count: Int) -> [Int32] {
        var descriptors: [Int32] = []
        for index in 0..<count {
            var descriptor: Int32 = -1
            let e = CV4L2_exportBuffer(device.fd, UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue), UInt32(index), &descriptor)
            guard e == 0 else {
                MovieRecorderLogging.log(.debug, "camera", "\(device.path): buffers are not exported as DMA-BUFs (VIDIOC_EXPBUF: \(String(cString: strerror(e)))); a hardware encoder copies the pictures")
                for descriptor in descriptors { Glibc.close(descriptor) }
                return []
            }
            descriptors.append(descriptor)
        }
        return descriptors
    }

    /// How long converted buffers were held.
    package var conversionStatistics: ConversionStatistics { delivery.statistics }

    /// Captures until `run` is asked to stop or the device fails; then stops streaming, and
    /// only then reports a failure as the run's last event, so a restart from that event's
    /// handler finds the device released.
    package func run(_ run: CaptureRun, handler: @Sendable (VideoSourceEvent) -> Void) {
        var ending: InterruptionReason?
        capture: while !run.isStopRequested {
            var pfd = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
            let ready: Int32
            switch SystemCall.retrying({ poll(&pfd, 1, 100) }) {
            case .success(let count): ready = count
            case .failure(let error):
                ending = InterruptionReason(source: device.path, message: "poll failed: \(error)")
                break capture
            }
            if ready == 0 { continue }
            if pfd.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && pfd.revents & Int16(POLLIN) == 0 {
                ending = InterruptionReason(source: device.path, message: "the camera was disconnected (poll reported an error)")
                break
            }
            var buffer = v4l2_buffer()
            buffer.type = UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            buffer.memory = UInt32(V4L2_MEMORY_MMAP.rawValue)
            let e = device.ioctl(CV4L2_VIDIOC_DQBUF(), &buffer)
            if e == EAGAIN { continue }
            if e != 0 {
                let lost = e == ENODEV || e == ENXIO
                ending = InterruptionReason(
                    source: device.path,
                    message: lost ? "the camera was disconnected (ENODEV)" : "taking a frame (VIDIOC_DQBUF) failed: \(String(cString: strerror(e)))")
                break
            }
            let mapping = mappings[Int(buffer.index)]
            let used = buffer.bytesused == 0 ? mapping.length : min(Int(buffer.bytesused), mapping.length)
            lending.withLock { $0.outstanding += 1 }
            let dequeued = DequeuedBuffer(bytes: UnsafeRawBufferPointer(start: mapping.pointer, count: used),
                                          sequence: buffer.sequence, timestamp: Self.timestamp(of: buffer),
                                          isError: buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0,
                                          exportDescriptor: Int(buffer.index) < exports.count ? exports[Int(buffer.index)] : -1,
                                          length: mapping.length)
            delivery.deliver(dequeued, holder: BufferLease(stream: self, index: buffer.index), run: run, handler: handler)
        }
        shutdown()
        if let ending { run.finish { handler(.interrupted(ending)) } }
    }

    /// The driver's capture time when it is on the monotonic clock and plausible (within a
    /// second of now), else now.
    ///
    /// The window reaches into the future too: a driver may stamp a buffer with the end of its
    /// exposure before that moment has come. vivid stamps 0.9 of a frame period ahead of the
    /// moment it completes a buffer, so at 25 fps its buffers are dequeued 28–35 ms before
    /// their timestamps. Accepting only past times replaced every such timestamp with the
    /// arrival time, and would mix the two clocks whenever a buffer is dequeued late.
    static func timestamp(of buffer: v4l2_buffer) -> UInt64 {
        let now = MonotonicClock.now()
        guard buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC) else { return now }
        let ns = UInt64(max(0, buffer.timestamp.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, buffer.timestamp.tv_usec)) &* 1000
        // A wrapped or bogus driver timestamp must not corrupt the timeline.
        let distance = ns > now ? ns - now : now - ns
        return distance < 1_000_000_000 ? ns : now
    }

    /// Gives a buffer back to the driver.
    fileprivate func requeue(_ index: UInt32) {
        guard !lending.withLock({ $0.closing }) else { return }
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        buffer.memory = UInt32(V4L2_MEMORY_MMAP.rawValue)
        _ = device.ioctl(CV4L2_VIDIOC_QBUF(), &buffer)
    }

    fileprivate func returnLent(_ index: UInt32) {
        requeue(index)
        let teardown: Bool = lending.withLock { s in
            s.outstanding -= 1
            return s.closing && s.outstanding == 0 && !s.closed ? { s.closed = true; return true }() : false
        }
        if teardown { release() }
    }

    /// Stops streaming; the buffers and the device are released once no frame holds them.
    /// Stops streaming and releases the device once no frame is lent (also for a stream that
    /// never ran, when its thread could not start).
    package func shutdown() {
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        // Stream off before marking the stream closing: once it is, the last lent frame's
        // release may close the device, and the ioctl would reach a closed descriptor.
        if !lending.withLock({ $0.closing }) { _ = device.ioctl(CV4L2_VIDIOC_STREAMOFF(), &type) }
        let teardown: Bool = lending.withLock { s in
            s.closing = true
            return s.outstanding == 0 && !s.closed ? { s.closed = true; return true }() : false
        }
        if teardown { release() }
    }

    private func release() {
        for (pointer, length) in mappings { _ = v4l2_munmap(pointer, length) }
        for descriptor in exports { Glibc.close(descriptor) }
        device.close()
    }
}

/// A V4L2 buffer lent to frames; queued back to the driver when the last frame lets go.
private final class BufferLease: Sendable {
    package let stream: V4L2Stream
    package let index: UInt32
    package init(stream: V4L2Stream, index: UInt32) {
        self.stream = stream
        self.index = index
    }
    deinit { stream.returnLent(index) }
}
