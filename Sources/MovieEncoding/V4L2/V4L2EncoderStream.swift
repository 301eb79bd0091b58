import MovieContainer
import MoviePlatform
@_spi(DeviceRig) import MovieCapture
#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

/// One stream through a V4L2 stateful memory-to-memory encoder (the kernel's
/// `Documentation/userspace-api/media/v4l/dev-encoder.rst`): the Raspberry Pi 4's
/// bcm2835-codec, Qualcomm Venus, MediaTek, Samsung MFC — and vicodec, the kernel's own
/// reference, which the device rig tests against.
///
/// Pictures are copied into the encoder's OUTPUT buffers (or, when they lie in a camera's
/// exported buffer, imported as DMA-BUFs without a copy), each stamped with a number of ours
/// that the driver copies to the coded frame it makes from it (so the caller maps coded frames
/// back to its own times, whatever the driver does to timestamps), and the coded frames are
/// copied out of its CAPTURE buffers. Every wait is a `poll` with a deadline, so a driver that
/// stops answering, or a device that goes away, is an ``EncoderError`` naming the device and
/// the step, never a hang. Used from one thread at a time.
@_spi(DeviceRig) public final class V4L2EncoderStream: @unchecked Sendable {
    // @unchecked: one thread at a time uses it (the encoding thread that owns it).

    /// A control set on the encoder's own file descriptor before streaming (each open of a
    /// memory-to-memory device has controls of its own: values set by another process, such as
    /// `v4l2-ctl`, never reach it).
    public struct Control: Hashable, Sendable {
        public var id: UInt32
        public var value: Int32
        /// The name errors use, such as "the GOP size".
        public var name: String
        /// Whether the stream cannot do without it; others are skipped when the driver lacks them.
        public var isRequired: Bool

        public init(id: UInt32, value: Int32, name: String, isRequired: Bool) {
            self.id = id
            self.value = value
            self.name = name
            self.isRequired = isRequired
        }
    }

    /// What to encode and how.
    public struct Configuration: Sendable {
        /// The coded format on CAPTURE: `H264`, `HEVC`, `FWHT`.
        public var codedFormat: V4L2PixelFormat
        /// The pictures' layout, which goes on OUTPUT as `YU12` or `NV12` (a camera's YUYV or
        /// UYVY instead once adopted: ``adoptCameraLayout(_:)``).
        public var pictureFormat: PixelFormat
        public var width: Int
        public var height: Int
        public var frameRate: FrameRate
        public var controls: [Control] = []
        /// Buffers on each queue.
        public var bufferCount = 4
        /// Whether pictures that lie in a camera's exported buffer are imported as DMA-BUFs
        /// rather than copied, when their layout is the one the encoder takes.
        public var importsCameraBuffers = true
        /// OUTPUT buffers while importing: each holds a camera buffer until the encoder is done
        /// with it, so two of the camera's six (the recording's queue may hold four more), which
        /// still lets an encoder take the next picture while it codes one.
        public var importBufferCount = 2
        /// How long any one step may wait for the driver, in nanoseconds.
        public var timeout: UInt64 = 5_000_000_000

        public init(codedFormat: V4L2PixelFormat, pictureFormat: PixelFormat, width: Int, height: Int, frameRate: FrameRate) {
            self.codedFormat = codedFormat
            self.pictureFormat = pictureFormat
            self.width = width
            self.height = height
            self.frameRate = frameRate
        }
    }

    /// A coded frame, copied out of its CAPTURE buffer.
    public struct CodedFrame: Sendable {
        public var bytes: [UInt8]
        /// The number its picture was submitted with.
        public var number: UInt64
        /// The buffer's `V4L2_BUF_FLAG_*` bits.
        public var flags: UInt32
        /// Whether the driver flagged it a keyframe (not every driver does: vicodec's encoder does not).
        public var isFlaggedKeyframe: Bool { flags & UInt32(V4L2_BUF_FLAG_KEYFRAME) != 0 }
    }

    public let path: String
    public private(set) var configuration: Configuration
    private let device: V4L2Device
    private var output: V4L2CodecQueue
    private var capture: V4L2CodecQueue
    private var isClosed = false
    /// Pictures submitted since the stream (re)started: none means the next one starts it.
    private var picturesSinceStart = 0
    /// The frames whose camera buffers the OUTPUT buffers imported, by index, until the encoder
    /// gives each back.
    private var heldFrames: [VideoFrame?] = []
    /// Coded frames a drain finished inside ``submit(_:number:)``, for ``takeCoded(waiting:)``.
    private var finished: [CodedFrame] = []
    /// The driver refused DMA-BUF buffers on OUTPUT once: pictures are copied from then on.
    private var importRefused = false
    /// The picture layouts the OUTPUT queue takes for the coded format.
    private var outputLayouts: [V4L2PixelFormat] = []
    /// A copy among imports made this stream leave them: its next keyframe resets it, so the
    /// queue can turn back.
    private var leftPreferredIntake = false

    /// Pictures imported from a camera's DMA-BUF, and pictures copied into OUTPUT buffers.
    public private(set) var importedPictureCount = 0
    public private(set) var copiedPictureCount = 0
    /// Whether the OUTPUT queue holds imported DMA-BUFs now rather than buffers of its own.
    public var importsPictures: Bool { output.imports }
    /// The picture layout on the OUTPUT queue now: `YU12`, `NV12`, or a camera's `YUYV`.
    public var pictureLayout: V4L2PixelFormat { output.pixelFormat }

    /// Whether the encoder takes pictures in `layout` for its coded format.
    public func takesPictures(in layout: V4L2PixelFormat) -> Bool { outputLayouts.contains(layout) }

    /// The camera's packed layout (YUYV, UYVY) the stream takes pictures in, once adopted.
    public private(set) var cameraLayout: V4L2PixelFormat?

    /// Takes pictures in a camera's packed `layout` from the next stream start on, when the
    /// encoder takes it: frames lent the camera's picture go in as they are (imported or their
    /// rows copied), and any other I420 frame is written in that layout. Returns whether it will.
    public func adoptCameraLayout(_ layout: V4L2PixelFormat) -> Bool {
        guard NativePicture.lendable.contains(layout), takesPictures(in: layout) else { return false }
        cameraLayout = layout
        return true
    }

    /// Goes back to the planar layout from the next stream start on.
    public func abandonCameraLayout() { cameraLayout = nil }

    /// Whether the driver can be told to make the next picture a keyframe
    /// (`V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME`); without it ``requestKeyframe()`` resets the stream.
    public private(set) var canForceKeyframes = false

    /// The picture size the encoder codes, which a driver may pad past the pictures' own.
    public var codedWidth: Int { output.width }
    public var codedHeight: Int { output.height }

    /// Opens `path`, checks it is a memory-to-memory encoder that makes `configuration`'s coded
    /// format from its picture format at its size, sets the controls and starts both queues.
    public init(path: String, configuration: Configuration) throws(EncoderError) {
        self.path = path
        self.configuration = configuration
        let device: V4L2Device
        do { device = try V4L2Device(path: path) } catch { throw Self.opening(error) }
        self.device = device
        let caps: V4L2Device.Capabilities
        do { caps = try device.capabilities() } catch {
            device.close()
            throw EncoderError(.deviceNotFound, message: "\(path): checking capabilities failed: it is not a V4L2 device (\(error.message)); `movrec devices` lists the encoders")
        }
        output = V4L2CodecQueue(.output, device: device, multiplanar: caps.isMultiplanar)
        capture = V4L2CodecQueue(.capture, device: device, multiplanar: caps.isMultiplanar)
        do throws(EncoderError) {
            guard caps.isMemoryToMemory, caps.canStream else {
                throw EncoderError(.deviceNotFound, message: "\(path): checking capabilities failed: it is not a memory-to-memory encoder (driver \(caps.driver), \(caps.card)); `movrec devices` lists the encoders")
            }
            try configureFormats()
            try setControls()
            canForceKeyframes = device.hasControl(V4L2CodecControl.forceKeyFrame)
            _ = CV4L2_subscribeEvent(device.fd, UInt32(V4L2_EVENT_EOS))  // LAST flags the end where this is missing
            try startQueues()
        } catch {
            isClosed = true  // deinit runs for a failed init too: close once
            teardown()
            throw error
        }
    }

    deinit { close() }

    /// Sets the coded format on CAPTURE first (it may reset OUTPUT), then the pictures' on
    /// OUTPUT, and checks what the driver made of them: drivers clamp silently (vicodec to at
    /// least 640x360) and pad heights to their block size.
    private func configureFormats() throws(EncoderError) {
        let config = configuration
        guard capture.pixelFormats().contains(config.codedFormat) else {
            throw EncoderError(.unsupportedFormat, message: "\(path): choosing the coded format failed: it does not make \(config.codedFormat); it makes \(list(capture.pixelFormats()))")
        }
        try capture.setFormat(config.codedFormat, width: config.width, height: config.height)
        outputLayouts = output.pixelFormats()
        guard outputLayouts.contains(planarLayout) else {
            throw EncoderError(.unsupportedFormat, message: "\(path): choosing the picture format failed: it does not take \(planarLayout); it takes \(list(outputLayouts))")
        }
        try setPictureLayout(planarLayout)
        try capture.readFormat()
        var parm = v4l2_streamparm()
        parm.type = output.type
        parm.parm.output.timeperframe = v4l2_fract(numerator: config.frameRate.seconds, denominator: config.frameRate.frames)
        _ = device.ioctl(CV4L2_VIDIOC_S_PARM(), &parm)  // optional: vicodec has no frame rate (ENOTTY)
    }

    /// Gives both queues buffers of their own, hands the driver every CAPTURE buffer and starts
    /// streaming on both.
    private func startQueues() throws(EncoderError) {
        try output.allocate(count: configuration.bufferCount, minimum: 1)
        heldFrames = Array(repeating: nil, count: output.queued.count)
        try capture.allocate(count: configuration.bufferCount, minimum: 1)
        for index in capture.mappings.indices { try capture.queue(index, bytesUsed: 0, number: 0) }
        try output.stream(true)
        try capture.stream(true)
    }

    /// The planar layout the configuration names, `YU12` or `NV12`.
    var planarLayout: V4L2PixelFormat { configuration.pictureFormat == .i420 ? .yuv420 : .nv12 }

    /// Sets the OUTPUT queue's picture layout at the configured size, and checks the driver took
    /// it: the same width, the height padded by less than a block at most.
    private func setPictureLayout(_ layout: V4L2PixelFormat) throws(EncoderError) {
        let config = configuration
        try output.setFormat(layout, width: config.width, height: config.height)
        guard output.pixelFormat == layout, output.width == config.width,
              output.height >= config.height, output.height - config.height < 16 else {
            throw EncoderError(.unsupportedFormat, message: "\(path): setting the picture size failed: the driver took \(output.width)x\(output.height) \(output.pixelFormat) for \(config.width)x\(config.height) \(layout); record at a size it takes (`movrec devices` lists them)")
        }
    }

    /// Sets each control; a required one the driver refuses is an error naming it.
    private func setControls() throws(EncoderError) {
        for control in configuration.controls {
            var value = v4l2_control(id: control.id, value: control.value)
            let e = device.ioctl(CV4L2_VIDIOC_S_CTRL(), &value)
            if e != 0, control.isRequired {
                throw EncoderError(.unsupportedFormat, message: "\(path): setting \(control.name) to \(control.value) failed: \(String(cString: strerror(e)))")
            }
        }
    }

    /// Whether the driver has control `id` (`VIDIOC_QUERYCTRL`) and it is not disabled.
    public func hasControl(_ id: UInt32) -> Bool { device.hasControl(id) }

    /// Sets control `id` now, while streaming (a forced keyframe).
    public func setControl(_ id: UInt32, value: Int32, name: String) throws(EncoderError) {
        var control = v4l2_control(id: id, value: value)
        let e = device.ioctl(CV4L2_VIDIOC_S_CTRL(), &control)
        guard e == 0 else { throw output.failure(e, "setting \(name) (VIDIOC_S_CTRL)") }
    }

    private func list(_ formats: [V4L2PixelFormat]) -> String {
        formats.isEmpty ? "nothing" : formats.map(\.description).joined(separator: ", ")
    }
}

extension V4L2EncoderStream {
    /// Encodes `frame`, stamped `number` (at least 1; the coded frame carries it back), waiting
    /// for a free OUTPUT buffer while the encoder is busy. A picture in a camera's exported
    /// buffer, laid out as the encoder takes it, is imported without a copy; any other is copied.
    /// Once a camera's YUYV or UYVY is adopted (``adoptCameraLayout(_:)``), frames lent the
    /// camera's own picture go in in that layout, never converted.
    ///
    /// How the OUTPUT queue takes pictures (``Intake``) is chosen by each stream's first picture.
    /// A picture the queue cannot take — a copy the recording made while the encoder was behind,
    /// among imports — ends the stream there: it is drained, its frames kept
    /// for ``takeCoded(waiting:)``, and the queue turned, so the picture starts a new stream with
    /// a keyframe. So does a DMA-BUF the driver refuses to import, and every picture is copied
    /// from then on.
    public func submit(_ frame: VideoFrame, number: UInt64) throws(EncoderError) {
        guard !isClosed else { throw EncoderError(.failed, message: "\(path): encoding after the encoder was closed") }
        if picturesSinceStart == 0 {
            let preferred = preferredIntake(for: frame)
            if preferred != currentIntake { try turnOutput(to: preferred, for: frame) }
        } else if !accepts(frame) {
            try turnOutput(to: preferredIntake(for: frame), for: frame)
            leftPreferredIntake = true
        }
        let index = try freeOutputBuffer()
        if output.imports, let exported = frame.exportedPicture {
            do throws(EncoderError) {
                try output.queueImport(index, descriptor: exported.descriptor, length: exported.length,
                                       bytesUsed: output.sizeImage, number: number)
            } catch where error.code != .deviceLost {
                // A buffer this device cannot reach (another kind of memory, a stale descriptor):
                // copied from now on, this picture starting the new stream.
                importRefused = true
                MovieRecorderLogging.log(.warning, "encoder", "\(path): pictures are copied from now on: \(error.message)")
                try turnOutput(to: preferredIntake(for: frame), for: frame)
                return try submit(frame, number: number)
            }
            heldFrames[index] = frame
            importedPictureCount += 1
        } else {
            let copied = try copy(frame, into: index)
            try output.queue(index, bytesUsed: max(copied, min(output.sizeImage, output.mappings[index].count)), number: number)
            copiedPictureCount += 1
        }
        picturesSinceStart += 1
        try reclaimOutput()  // pictures already coded give their camera buffers back now
    }

    /// Copies `frame` into OUTPUT buffer `index` in the queue's layout: a camera's own picture
    /// row by row, an I420 picture written in the camera's layout, or the planes; the bytes used.
    private func copy(_ frame: VideoFrame, into index: Int) throws(EncoderError) -> Int {
        if let native = frame.nativePicture, native.pixelFormat == output.pixelFormat {
            return output.copy(native, width: frame.width, height: frame.height, into: index)
        }
        guard output.pixelFormat != planarLayout else { return output.copy(frame, into: index) }
        guard let base = output.mappings[index].baseAddress, output.mappings[index].count >= output.bytesPerLine * output.height,
              frame.writePacked(output.pixelFormat, into: base, bytesPerLine: output.bytesPerLine, rows: output.height) else {
            throw EncoderError(.failed, message: "\(path): writing a \(frame.pixelFormat.rawValue) picture as \(output.pixelFormat) failed; is libyuv (libyuv0) installed?")
        }
        return output.bytesPerLine * output.height
    }

    /// An OUTPUT buffer the driver does not hold, waiting for one while the encoder is busy.
    private func freeOutputBuffer() throws(EncoderError) -> Int {
        let deadline = MonotonicClock.now() + configuration.timeout
        try reclaimOutput()
        while output.freeBuffer == nil {
            try wait(for: Int16(POLLOUT), until: deadline, step: "waiting for a free OUTPUT buffer")
            try reclaimOutput()
        }
        return output.freeBuffer!
    }

    /// How the OUTPUT queue takes pictures: the layout on it, and whether its buffers are
    /// imported DMA-BUFs.
    struct Intake: Equatable {
        var layout: V4L2PixelFormat
        var imports: Bool
    }

    private var currentIntake: Intake { Intake(layout: output.pixelFormat, imports: output.imports) }

    /// What suits `frame` best: the adopted camera layout for a frame that can go in in it (its
    /// own picture in that layout, or I420 to write in it), else the configured planar one;
    /// imported when its exported buffer has that layout (checked again against the driver's row
    /// length once the layout is set).
    private func preferredIntake(for frame: VideoFrame) -> Intake {
        let layout = cameraLayout.map { fitsCameraLayout(frame, $0) ? $0 : planarLayout } ?? planarLayout
        let importable = layout == output.pixelFormat ? canImport(frame)
            : configuration.importsCameraBuffers && !importRefused && frame.exportedPicture?.pixelFormat == layout
        return Intake(layout: layout, imports: importable)
    }

    /// Whether the queue as it is can take `frame` without ending the stream: imports take a
    /// matching DMA-BUF, a camera layout takes that layout's bytes, the planar layout any frame.
    private func accepts(_ frame: VideoFrame) -> Bool {
        if output.imports { return canImport(frame) }
        return output.pixelFormat == planarLayout || fitsCameraLayout(frame, output.pixelFormat)
    }

    /// Whether `frame` can go in in the camera layout `layout`: its own picture in it, or I420
    /// to write in it, at the configured size.
    private func fitsCameraLayout(_ frame: VideoFrame, _ layout: V4L2PixelFormat) -> Bool {
        frame.width == configuration.width && frame.height == configuration.height
            && (frame.nativePicture?.pixelFormat == layout || frame.pixelFormat == .i420)
    }

    /// Whether `frame` lies in an exported camera buffer laid out exactly as the OUTPUT queue's
    /// format: the same pixel format, row length and size, no padded rows to fill.
    private func canImport(_ frame: VideoFrame) -> Bool {
        guard configuration.importsCameraBuffers, !importRefused, let exported = frame.exportedPicture else { return false }
        return exported.pixelFormat == output.pixelFormat && exported.bytesPerLine == output.bytesPerLine
            && frame.width == output.width && frame.height == output.height && exported.bytesUsed >= output.sizeImage
            && exported.length >= exported.bytesUsed
    }

    /// Turns the OUTPUT queue to `intake` for `frame`, ending the stream first if pictures are in
    /// it: the layout set again if it changes, then imported DMA-BUFs (when `frame`'s fits the
    /// layout as the driver set it) or buffers of its own. A driver that refuses imports keeps
    /// buffers of its own; one that refuses the camera's layout after all goes back to the planar
    /// layout for good, so the recording goes on either way.
    private func turnOutput(to intake: Intake, for frame: VideoFrame) throws(EncoderError) {
        if picturesSinceStart > 0 {
            let drained = try drain()  // with what an earlier turn finished
            finished = drained
            try restart()
        }
        try output.stream(false)
        heldFrames = []
        output.release()
        do throws(EncoderError) {
            try allocateOutput(for: intake, frame)
        } catch where intake.layout != planarLayout && error.code != .deviceLost {
            MovieRecorderLogging.log(.warning, "encoder", "\(path): pictures go in as \(planarLayout) from now on: \(error.message)")
            cameraLayout = nil
            output.release()
            try allocateOutput(for: Intake(layout: planarLayout, imports: false), frame)
        }
        heldFrames = Array(repeating: nil, count: output.queued.count)
        try output.stream(true)
    }

    /// Sets the OUTPUT layout `intake` names if it changes, then requests its buffers.
    private func allocateOutput(for intake: Intake, _ frame: VideoFrame) throws(EncoderError) {
        if output.pixelFormat != intake.layout { try setPictureLayout(intake.layout) }
        guard intake.imports && canImport(frame) else {
            return try output.allocate(count: configuration.bufferCount, minimum: 1)
        }
        do throws(EncoderError) {
            try output.allocateImports(count: configuration.importBufferCount)
        } catch {
            importRefused = true
            MovieRecorderLogging.log(.info, "encoder", "\(path): pictures are copied: \(error.message)")
            try output.allocate(count: configuration.bufferCount, minimum: 1)
        }
    }

    /// Makes the next submitted picture a keyframe. A driver with the force-keyframe control is
    /// asked through it (unless a copy turned the stream away from imports: then it is reset,
    /// so imports can resume); one without (vicodec) is drained and reset, which `dev-encoder.rst`
    /// defines as starting an independent stream: a keyframe with its headers, a drain's delay
    /// later. Returns the coded frames the drain finished, in order.
    public func requestKeyframe() throws(EncoderError) -> [CodedFrame] {
        guard picturesSinceStart > 0 else { return [] }  // the next picture starts the stream
        // A stream that had to leave imports (a copy among them) resets instead, so the next
        // picture can turn the queue back.
        if canForceKeyframes && !leftPreferredIntake {
            try setControl(V4L2CodecControl.forceKeyFrame, value: 1, name: "a keyframe (FORCE_KEY_FRAME)")
            return []
        }
        let frames = try drain()
        try restart()
        return frames
    }

    /// The next coded frame, waiting for it at most `timeout`. Nil when none came, or after the
    /// last one of a drain.
    public func takeCoded(waiting timeout: Duration = .zero) throws(EncoderError) -> CodedFrame? {
        if !finished.isEmpty { return finished.removeFirst() }
        defer { try? reclaimOutput() }  // the pictures coded by now give their camera buffers back
        return try takeFromDevice(waiting: timeout)
    }

    /// The next coded frame from the CAPTURE queue, waiting for it at most `timeout`.
    private func takeFromDevice(waiting timeout: Duration = .zero) throws(EncoderError) -> CodedFrame? {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
        let deadline: UInt64? = nanoseconds == 0 ? nil : MonotonicClock.now() + nanoseconds
        while true {
            switch try capture.dequeue() {
            case .buffer(let buffer):
                return try copyOut(buffer)
            case .ended:
                return nil
            case .none:
                guard let deadline, MonotonicClock.now() < deadline else { return nil }
                try wait(for: Int16(POLLIN), until: deadline, step: "waiting for a coded frame", throwsAtDeadline: false)
            }
        }
    }

    /// Copies a CAPTURE buffer's bytes out and queues it again. A buffer flagged LAST that holds
    /// nothing is the end of a drain (nil).
    private func copyOut(_ buffer: CV4L2_DequeuedBuffer) throws(EncoderError) -> CodedFrame? {
        let index = Int(buffer.index)
        let mapping = capture.mappings[index]
        let count = min(Int(buffer.bytesUsed), mapping.count)
        let bytes = Array(UnsafeRawBufferPointer(rebasing: mapping[0..<count]))
        let isLast = buffer.flags & UInt32(V4L2_BUF_FLAG_LAST) != 0
        try capture.queue(index, bytesUsed: 0, number: 0)
        if isLast && count == 0 { return nil }
        return CodedFrame(bytes: bytes, number: UInt64(max(0, buffer.seconds)), flags: buffer.flags)
    }

    /// Takes back the OUTPUT buffers the encoder is done with, letting go of the frames they
    /// imported (their camera buffers go back to the camera).
    private func reclaimOutput() throws(EncoderError) {
        while case .buffer(let buffer) = try output.dequeue() {
            if Int(buffer.index) < heldFrames.count { heldFrames[Int(buffer.index)] = nil }
        }
    }

    /// Waits until the device is ready for `events` (or signals an event) or `deadline` passes;
    /// an error at the deadline unless told otherwise, and when the device reports an error
    /// with nothing to take.
    private func wait(for events: Int16, until deadline: UInt64, step: String, throwsAtDeadline: Bool = true) throws(EncoderError) {
        let now = MonotonicClock.now()
        guard now < deadline else {
            guard throwsAtDeadline else { return }
            throw EncoderError(.deviceLost, message: "\(path): \(step) failed: nothing within \(configuration.timeout / 1_000_000_000) s; the encoder stopped answering")
        }
        var descriptor = pollfd(fd: device.fd, events: events | Int16(POLLPRI), revents: 0)
        let milliseconds = Int32(min(UInt64(Int32.max), (deadline - now + 999_999) / 1_000_000))
        let ready = SystemCall.retrying { poll(&descriptor, 1, milliseconds) }
        guard case .success(let count) = ready else {
            throw EncoderError(.deviceLost, message: "\(path): \(step) failed: poll failed")
        }
        if count > 0, descriptor.revents & Int16(POLLPRI) != 0 { drainEvents() }
        if count > 0, descriptor.revents & (events | Int16(POLLPRI)) == 0,
           descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
            throw EncoderError(.deviceLost, message: "\(path): \(step) failed: the device reported an error; it may have been removed")
        }
    }

    /// Reads the pending events: EOS needs no action of its own (the LAST buffer ends a drain).
    private func drainEvents() {
        var type: UInt32 = 0, changes: UInt32 = 0
        while CV4L2_dequeueEvent(device.fd, &type, &changes) == 0 {}
    }
}

extension V4L2EncoderStream {
    /// Ends the stream: asks the encoder to finish the pictures it holds (`V4L2_ENC_CMD_STOP`)
    /// and returns their coded frames, up to the one flagged LAST. A driver without the command
    /// is drained by waiting for every OUTPUT buffer to come back.
    public func drain() throws(EncoderError) -> [CodedFrame] {
        guard !isClosed else { return [] }
        defer { picturesSinceStart = 0 }  // the stream has ended: nothing is waiting in it
        let drained = try drainDevice()
        defer { finished = [] }  // only once the drain succeeded: a failed one keeps them
        return finished + drained
    }

    /// Drains the device: the coded frames up to the one flagged LAST.
    private func drainDevice() throws(EncoderError) -> [CodedFrame] {
        let deadline = MonotonicClock.now() + configuration.timeout
        var frames: [CodedFrame] = []
        let e = CV4L2_encoderCommand(device.fd, UInt32(V4L2_ENC_CMD_STOP))
        if e == ENOTTY || e == EINVAL {
            while output.queued.contains(true) {
                while let frame = try takeFromDevice() { frames.append(frame) }
                try reclaimOutput()
                if output.queued.contains(true) { try wait(for: Int16(POLLIN | POLLOUT), until: deadline, step: "draining") }
            }
            return frames
        }
        guard e == 0 else { throw output.failure(e, "draining (VIDIOC_ENCODER_CMD STOP)") }
        while true {
            switch try capture.dequeue() {
            case .buffer(let buffer):
                let isLast = buffer.flags & UInt32(V4L2_BUF_FLAG_LAST) != 0
                if let frame = try copyOut(buffer) { frames.append(frame) }
                if isLast { return frames }
            case .ended:
                return frames
            case .none:
                try wait(for: Int16(POLLIN), until: deadline, step: "draining (waiting for the last coded frame)")
            }
        }
    }

    /// Changes the picture size the way the encoder interface allows (an encoder has no
    /// source-change event): drains what was submitted, stops both queues, gives their buffers
    /// back, sets the formats at the new size and starts again, so the next picture begins a new
    /// stream at that size. Returns the coded frames the drain finished.
    public func resize(width: Int, height: Int) throws(EncoderError) -> [CodedFrame] {
        let frames = picturesSinceStart > 0 ? try drain() : []
        try output.stream(false)
        try capture.stream(false)
        heldFrames = []
        output.release()
        capture.release()
        configuration.width = width
        configuration.height = height
        try configureFormats()
        try startQueues()
        picturesSinceStart = 0
        leftPreferredIntake = false
        return frames
    }

    /// After a drain, starts a new stream on the same device: the CAPTURE queue is stopped and
    /// started again, so the next picture begins an independent stream (a keyframe, its headers
    /// again) — the reset of `dev-encoder.rst`.
    public func restart() throws(EncoderError) {
        try reclaimOutput()
        try capture.stream(false)
        for index in capture.mappings.indices { try capture.queue(index, bytesUsed: 0, number: 0) }
        try capture.stream(true)
        picturesSinceStart = 0
        leftPreferredIntake = false
    }

    /// Stops both queues and closes the device; later calls do nothing.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        teardown()
    }

    private func teardown() {
        _ = CV4L2_stream(device.fd, output.type, 0)
        _ = CV4L2_stream(device.fd, capture.type, 0)
        heldFrames = []
        output.release()
        capture.release()
        device.close()
    }

    /// An encoder error for a device that could not be opened or queried.
    static func opening(_ error: DeviceError) -> EncoderError {
        switch error.code {
        case .notFound:
            EncoderError(.deviceNotFound, message: "\(error.device): \(error.step) failed: no such device; `movrec devices` lists the encoders")
        case .lost:
            EncoderError(.deviceLost, message: error.message)
        case .permissionDenied, .busy, .libraryMissing:
            EncoderError(.failed, message: error.message)
        default:
            // libv4l2 refuses a node that answers no VIDIOC_QUERYCAP (/dev/null, a file).
            EncoderError(.deviceNotFound, message: "\(error.device): \(error.step) failed: it is not a V4L2 device (\(error.message)); `movrec devices` lists the encoders")
        }
    }

    /// An encoder error for `step` on `device` failing with `errnoValue`: ENODEV and ENXIO mean
    /// the device went away.
    static func failure(_ errnoValue: Int32, device: String, step: String) -> EncoderError {
        let reason = String(cString: strerror(errnoValue))
        if errnoValue == ENODEV || errnoValue == ENXIO {
            return EncoderError(.deviceLost, message: "\(device): \(step) failed: \(reason) — the encoder is gone (its driver unloaded or the device removed)")
        }
        return EncoderError(errnoValue == EINVAL ? .unsupportedFormat : .failed, message: "\(device): \(step) failed: \(reason)")
    }
}
