/// A source whose frames can carry a camera's own packed picture (YUYV, UYVY) unconverted, when
/// a recording's encoder takes that layout: a V4L2 camera, and a replay of one's buffers.
package protocol NativePictureLending: VideoSource {
    /// The packed layout the source can lend, or nil when it has none to lend.
    var nativePictureLayout: V4L2PixelFormat? { get }
    /// The switch a recording turns on while its encoder takes ``nativePictureLayout``.
    var nativePictures: NativePictureSwitch { get }
}
