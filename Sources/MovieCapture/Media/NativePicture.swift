/// A camera's picture in its own packed layout (YUYV, UYVY), lent to a frame whose I420 planes
/// are made from it only when something reads them: a hardware encoder that takes the camera's
/// layout encodes these bytes, and the conversion never runs.
package struct NativePicture: @unchecked Sendable {
    // @unchecked: the bytes belong to the camera buffer the frame holds, read-only once delivered.
    /// The camera's pixel format.
    package let pixelFormat: V4L2PixelFormat
    /// The first byte of the picture.
    package let base: UnsafeRawPointer
    /// The driver's row length, padding included.
    package let bytesPerLine: Int
    /// The bytes of the picture in the buffer.
    package let bytesUsed: Int

    /// The camera layouts that can be lent this way: packed 4:2:2, which libyuv converts and the
    /// SoC encoders take.
    package static let lendable: Set<V4L2PixelFormat> = [.yuyv, .uyvy]
}
