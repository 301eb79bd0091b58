import MovieContainer
import MoviePlatform
import MovieCapture
#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

/// One queue of a V4L2 memory-to-memory codec — OUTPUT (what goes in) or CAPTURE (what comes
/// out) — in the single- or multi-planar API: its format and its memory-mapped buffers, and
/// which of them the driver holds.
///
/// Every error names the device and the step; `EncoderError.Code.deviceLost` when the device
/// went away (ENODEV), so a removed module is an error, never a hang.
struct V4L2CodecQueue {
    enum Kind { case output, capture }

    let kind: Kind
    let device: V4L2Device
    let multiplanar: Bool
    /// The format as the driver set it.
    private(set) var format = CV4L2_QueueFormat()
    private(set) var mappings: [UnsafeMutableRawBufferPointer] = []
    /// Which buffers the driver holds now.
    private(set) var queued: [Bool] = []
    /// Whether the buffers are DMA-BUFs of another device's (`V4L2_MEMORY_DMABUF`), queued one
    /// picture at a time, rather than memory-mapped buffers of the codec's own.
    private(set) var imports = false

    init(_ kind: Kind, device: V4L2Device, multiplanar: Bool) {
        self.kind = kind
        self.device = device
        self.multiplanar = multiplanar
    }

    var type: UInt32 {
        switch (kind, multiplanar) {
        case (.output, false): UInt32(V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue)
        case (.output, true): UInt32(V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE.rawValue)
        case (.capture, false): UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        case (.capture, true): UInt32(V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue)
        }
    }

    var name: String { kind == .output ? "OUTPUT" : "CAPTURE" }
    var pixelFormat: V4L2PixelFormat { V4L2PixelFormat(rawValue: format.pixelFormat) }
    var width: Int { Int(format.width) }
    var height: Int { Int(format.height) }
    var bytesPerLine: Int { Int(format.bytesPerLine) }
    var sizeImage: Int { Int(format.sizeImage) }

    /// The pixel formats the queue lists now (for an encoder's OUTPUT, those it takes for the
    /// coded format set on CAPTURE).
    /// `compressed`: only the compressed formats (`V4L2_FMT_FLAG_COMPRESSED`), the coded ones.
    func pixelFormats(compressed: Bool = false) -> [V4L2PixelFormat] {
        var formats: [V4L2PixelFormat] = []
        for index in 0..<128 {
            var code: UInt32 = 0, flags: UInt32 = 0
            guard CV4L2_enumerateFormat(device.fd, type, UInt32(index), &code, &flags) == 0 else { break }
            if !compressed || flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0 { formats.append(V4L2PixelFormat(rawValue: code)) }
        }
        return formats
    }

    /// Sets the queue's format (`VIDIOC_S_FMT`); the driver may adjust it: read ``format`` back.
    mutating func setFormat(_ pixelFormat: V4L2PixelFormat, width: Int, height: Int, sizeImage: Int = 0) throws(EncoderError) {
        var wanted = CV4L2_QueueFormat(pixelFormat: pixelFormat.rawValue, width: UInt32(width), height: UInt32(height),
                                       bytesPerLine: 0, sizeImage: UInt32(sizeImage))
        let e = CV4L2_setQueueFormat(device.fd, type, multiplanar ? 1 : 0, &wanted)
        guard e == 0 else { throw failure(e, "setting the \(name) format to \(pixelFormat) \(width)x\(height) (VIDIOC_S_FMT)") }
        format = wanted
    }

    /// Reads the queue's format as the driver has it now (`VIDIOC_G_FMT`).
    mutating func readFormat() throws(EncoderError) {
        var current = CV4L2_QueueFormat()
        let e = CV4L2_getQueueFormat(device.fd, type, multiplanar ? 1 : 0, &current)
        guard e == 0 else { throw failure(e, "reading the \(name) format (VIDIOC_G_FMT)") }
        format = current
    }

    /// Requests `count` memory-mapped buffers and maps them; fewer than `minimum` is an error.
    mutating func allocate(count: Int, minimum: Int) throws(EncoderError) {
        var granted = UInt32(count)
        let e = CV4L2_requestBuffers(device.fd, type, &granted)
        guard e == 0 else { throw failure(e, "requesting \(count) \(name) buffers (VIDIOC_REQBUFS)") }
        guard granted >= UInt32(minimum) else {
            throw EncoderError(.unsupportedFormat, message: "\(device.path): requesting \(name) buffers failed: the driver granted \(granted), at least \(minimum) are needed")
        }
        for index in 0..<granted {
            var length: UInt32 = 0, offset: UInt32 = 0
            let q = CV4L2_queryBuffer(device.fd, type, multiplanar ? 1 : 0, index, &length, &offset)
            guard q == 0 else { throw failure(q, "querying \(name) buffer \(index) (VIDIOC_QUERYBUF)") }
            guard let pointer = v4l2_mmap(nil, Int(length), PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, Int64(offset)),
                  CV4L2_map_failed(pointer) == 0 else {
                throw failure(errno, "mapping \(name) buffer \(index)")
            }
            mappings.append(UnsafeMutableRawBufferPointer(start: pointer, count: Int(length)))
            queued.append(false)
        }
    }

    /// Requests `count` buffers whose memory comes with each picture queued: DMA-BUFs another
    /// device exported (`V4L2_MEMORY_DMABUF`); fewer than one is an error.
    mutating func allocateImports(count: Int) throws(EncoderError) {
        var granted = UInt32(count)
        let e = CV4L2_requestImportBuffers(device.fd, type, &granted)
        guard e == 0 else { throw failure(e, "requesting \(count) \(name) buffers for DMA-BUF import (VIDIOC_REQBUFS)") }
        guard granted >= 1 else {
            throw EncoderError(.unsupportedFormat, message: "\(device.path): requesting \(name) buffers for DMA-BUF import failed: the driver granted none")
        }
        imports = true
        queued = Array(repeating: false, count: Int(granted))
    }

    /// Unmaps the buffers and gives them back to the driver (`VIDIOC_REQBUFS` of 0); call after
    /// streaming stopped.
    mutating func release() {
        for mapping in mappings { _ = v4l2_munmap(mapping.baseAddress, mapping.count) }
        mappings = []
        queued = []
        var none: UInt32 = 0
        _ = imports ? CV4L2_requestImportBuffers(device.fd, type, &none) : CV4L2_requestBuffers(device.fd, type, &none)
        imports = false
    }

    /// The index of a buffer the driver does not hold, if any.
    var freeBuffer: Int? { queued.firstIndex(of: false) }

    /// Hands buffer `index` to the driver with `bytesUsed` bytes, stamped `number` (in the
    /// seconds of its timestamp, which a codec copies to what it makes from it).
    mutating func queue(_ index: Int, bytesUsed: Int, number: UInt64) throws(EncoderError) {
        let e = CV4L2_queueBuffer(device.fd, type, multiplanar ? 1 : 0, UInt32(index), UInt32(bytesUsed), Int64(number), 0)
        guard e == 0 else { throw failure(e, "queueing \(name) buffer \(index) (VIDIOC_QBUF)") }
        queued[index] = true
    }

    /// Hands import buffer `index` to the driver as the DMA-BUF `descriptor` of `length` bytes
    /// holding `bytesUsed`, stamped `number` as ``queue(_:bytesUsed:number:)`` does.
    mutating func queueImport(_ index: Int, descriptor: Int32, length: Int, bytesUsed: Int, number: UInt64) throws(EncoderError) {
        let e = CV4L2_queueImport(device.fd, type, multiplanar ? 1 : 0, UInt32(index), descriptor, UInt32(length),
                                  UInt32(bytesUsed), Int64(number))
        guard e == 0 else { throw failure(e, "queueing \(name) buffer \(index) with an imported DMA-BUF (VIDIOC_QBUF)") }
        queued[index] = true
    }

    /// What taking a buffer gave.
    enum Taken {
        /// A buffer the driver is done with.
        case buffer(CV4L2_DequeuedBuffer)
        /// None is ready yet (EAGAIN).
        case none
        /// The codec's last buffer was taken already (EPIPE): nothing more until a restart.
        case ended
    }

    /// Takes a buffer the driver is done with, without waiting.
    mutating func dequeue() throws(EncoderError) -> Taken {
        var buffer = CV4L2_DequeuedBuffer()
        buffer.imported = imports ? 1 : 0
        let e = CV4L2_dequeueBuffer(device.fd, type, multiplanar ? 1 : 0, &buffer)
        if e == EAGAIN { return .none }
        if e == EPIPE { return .ended }
        guard e == 0 else { throw failure(e, "taking a \(name) buffer (VIDIOC_DQBUF)") }
        if Int(buffer.index) < queued.count { queued[Int(buffer.index)] = false }
        return .buffer(buffer)
    }

    /// Starts or stops streaming; stopping gives every buffer back to us.
    mutating func stream(_ on: Bool) throws(EncoderError) {
        let e = CV4L2_stream(device.fd, type, on ? 1 : 0)
        guard e == 0 else { throw failure(e, "\(on ? "starting" : "stopping") the \(name) queue (VIDIOC_STREAM\(on ? "ON" : "OFF"))") }
        if !on { queued = queued.map { _ in false } }
    }

    /// An error for `step` failing with `errnoValue`.
    func failure(_ errnoValue: Int32, _ step: String) -> EncoderError {
        V4L2EncoderStream.failure(errnoValue, device: device.path, step: step)
    }
}
