import Synchronization
import Testing
@_spi(DeviceRig) import MovieCapture
import MoviePlatform

/// A YUYV camera's pictures lent to frames as they are while a hardware encoder that takes YUYV
/// asks for them: planes made only when read, the same as the conversion at capture makes.
@Suite struct NativePictureTests {
    static let width = 64, height = 48

    /// A YUYV picture with a different value in every byte position (a gradient per row).
    static func yuyvPicture() -> [UInt8] {
        (0..<width * 2 * height).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / (width * 2) * 13) }
    }

    /// Tells when the buffer a frame was lent goes back, as a camera's lease does.
    final class Holder: Sendable {
        let returned: Mutex<Bool>
        init() { returned = Mutex(false) }
    }

    final class Lease: Sendable {
        let holder: Holder
        init(_ holder: Holder) { self.holder = holder }
        deinit { holder.returned.withLock { $0 = true } }
    }

    /// Delivers `bytes` as one YUYV buffer, the switch on or off; the frame, if one came.
    static func deliver(_ bytes: [UInt8], lending: Bool, holder: Holder) throws -> VideoFrame? {
        let lendingSwitch = NativePictureSwitch()
        if lending { lendingSwitch.request() }
        let delivery = try CameraBufferDelivery(pixelFormat: .yuyv, width: width, height: height, bytesPerLine: width * 2,
                                                descriptor: -1, device: "test", live: true, poolCount: 2,
                                                nativePictures: lendingSwitch)
        let frames = Mutex<[VideoFrame]>([])
        bytes.withUnsafeBytes { raw in
            delivery.deliver(DequeuedBuffer(bytes: raw, sequence: 1, timestamp: 1), holder: Lease(holder), run: CaptureRun()) { event in
                if case .frame(let frame) = event { frames.withLock { $0.append(frame) } }
            }
        }
        return frames.withLock { $0.first }
    }

    @Test func aLentPictureIsConvertedOnlyWhenReadAndAsAtCapture() throws {
        let picture = Self.yuyvPicture()
        let eagerHolder = Holder()
        let eager = try #require(try Self.deliver(picture, lending: false, holder: eagerHolder))
        #expect(eager.nativePicture == nil)
        #expect(eagerHolder.returned.withLock { $0 }, "a converted picture gives its buffer back at once")

        let holder = Holder()
        do {
            let lent = try #require(try Self.deliver(picture, lending: true, holder: holder))
            let native = try #require(lent.nativePicture)
            #expect(native.pixelFormat == .yuyv && native.bytesPerLine == Self.width * 2)
            #expect(!lent.convertedOnDemand, "nothing read the planes yet")
            #expect(!holder.returned.withLock { $0 }, "the lent buffer is held while the frame lives")
            #expect(lent.packedBytes() == eager.packedBytes(), "planes made on demand differ from the conversion at capture")
            #expect(lent.convertedOnDemand)
        }
        #expect(holder.returned.withLock { $0 }, "the buffer goes back with the frame")
    }

    @Test func concurrentReadersShareOneConversion() async throws {
        let picture = Self.yuyvPicture()
        let frame = try #require(try Self.deliver(picture, lending: true, holder: Holder()))
        let bases = await withTaskGroup(of: UInt.self) { group in
            for _ in 0..<8 { group.addTask { UInt(bitPattern: frame.planes[0].baseAddress) } }
            return await group.reduce(into: Set<UInt>()) { $0.insert($1) }
        }
        #expect(bases.count == 1, "each reader got planes at \(bases.count) different places")
    }
}
