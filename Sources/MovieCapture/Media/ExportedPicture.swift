/// The camera buffer a frame's picture lies in, as a DMA-BUF another device can read without a
/// copy (V4L2 `VIDIOC_EXPBUF`): a hardware encoder imports it instead of copying the picture
/// into buffers of its own.
///
/// The descriptor belongs to the camera's stream and stays open while any frame holding it
/// lives; an importer keeps the frame until the device has given the buffer back, so the camera
/// does not fill it again meanwhile. The device rig makes its own, to hand an encoder a
/// descriptor it must refuse.
@_spi(DeviceRig) public struct ExportedPicture: Sendable {
    /// The DMA-BUF descriptor; never closed by the frame's users.
    public let descriptor: Int32
    /// The camera's own layout of the picture: `YU12`, `NV12`, `YUYV`, `UYVY`.
    public let pixelFormat: V4L2PixelFormat
    /// The driver's row length of the first plane, padding included.
    public let bytesPerLine: Int
    /// The bytes of the picture in the buffer.
    public let bytesUsed: Int
    /// The buffer's whole length.
    public let length: Int

    public init(descriptor: Int32, pixelFormat: V4L2PixelFormat, bytesPerLine: Int, bytesUsed: Int, length: Int) {
        self.length = length
        self.descriptor = descriptor
        self.pixelFormat = pixelFormat
        self.bytesPerLine = bytesPerLine
        self.bytesUsed = bytesUsed
    }
}
