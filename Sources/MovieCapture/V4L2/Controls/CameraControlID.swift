/// A V4L2 control ID, with the common ones named as AVCaptureDevice users know them.
public struct CameraControlID: RawRepresentable, Hashable, Sendable {
    /// The V4L2 ID, such as `0x00980900` (`V4L2_CID_BRIGHTNESS`).
    public let rawValue: UInt32
    /// Creates an ID from its V4L2 value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Picture brightness (`V4L2_CID_BRIGHTNESS`).
    public static let brightness = CameraControlID(rawValue: 0x0098_0900)
    /// Picture contrast (`V4L2_CID_CONTRAST`).
    public static let contrast = CameraControlID(rawValue: 0x0098_0901)
    /// Colour saturation (`V4L2_CID_SATURATION`).
    public static let saturation = CameraControlID(rawValue: 0x0098_0902)
    /// Hue (`V4L2_CID_HUE`).
    public static let hue = CameraControlID(rawValue: 0x0098_0903)
    /// Automatic white balance on or off (`V4L2_CID_AUTO_WHITE_BALANCE`).
    public static let automaticWhiteBalance = CameraControlID(rawValue: 0x0098_090C)
    /// Automatic gain on or off (`V4L2_CID_AUTOGAIN`).
    public static let automaticGain = CameraControlID(rawValue: 0x0098_0912)
    /// Gain (`V4L2_CID_GAIN`).
    public static let gain = CameraControlID(rawValue: 0x0098_0913)
    /// Mains frequency the exposure avoids flicker at: see ``PowerLineFrequency``
    /// (`V4L2_CID_POWER_LINE_FREQUENCY`).
    public static let powerLineFrequency = CameraControlID(rawValue: 0x0098_0918)
    /// White balance colour temperature in kelvin (`V4L2_CID_WHITE_BALANCE_TEMPERATURE`).
    public static let whiteBalanceTemperature = CameraControlID(rawValue: 0x0098_091A)
    /// Sharpness (`V4L2_CID_SHARPNESS`).
    public static let sharpness = CameraControlID(rawValue: 0x0098_091B)
    /// Backlight compensation (`V4L2_CID_BACKLIGHT_COMPENSATION`).
    public static let backlightCompensation = CameraControlID(rawValue: 0x0098_091C)
    /// Exposure mode: see ``ExposureMode`` (`V4L2_CID_EXPOSURE_AUTO`).
    public static let exposureMode = CameraControlID(rawValue: 0x009A_0901)
    /// Exposure time in units of 100 µs (`V4L2_CID_EXPOSURE_ABSOLUTE`).
    public static let exposureTime = CameraControlID(rawValue: 0x009A_0902)
    /// Pan position (`V4L2_CID_PAN_ABSOLUTE`).
    public static let pan = CameraControlID(rawValue: 0x009A_0908)
    /// Tilt position (`V4L2_CID_TILT_ABSOLUTE`).
    public static let tilt = CameraControlID(rawValue: 0x009A_0909)
    /// Focus position (`V4L2_CID_FOCUS_ABSOLUTE`).
    public static let focusPosition = CameraControlID(rawValue: 0x009A_090A)
    /// Continuous automatic focus on or off (`V4L2_CID_FOCUS_AUTO`).
    public static let automaticFocus = CameraControlID(rawValue: 0x009A_090C)
    /// Zoom position (`V4L2_CID_ZOOM_ABSOLUTE`).
    public static let zoom = CameraControlID(rawValue: 0x009A_090D)

    /// V4L2's exposure modes (`V4L2_CID_EXPOSURE_AUTO`'s menu).
    public enum ExposureMode: Int64, Sendable, CaseIterable {
        /// Exposure time and iris chosen by the camera.
        case automatic = 0
        /// Both set by hand (``CameraControlID/exposureTime``), like AVCaptureDevice's `.custom`.
        case manual = 1
        /// The exposure time set by hand, the iris automatic.
        case shutterPriority = 2
        /// The iris set by hand, the exposure time automatic.
        case aperturePriority = 3
    }

    /// `V4L2_CID_POWER_LINE_FREQUENCY`'s menu.
    public enum PowerLineFrequency: Int64, Sendable, CaseIterable {
        /// No flicker avoidance.
        case disabled = 0
        /// 50 Hz mains (Europe, most of Asia and Africa).
        case hz50 = 1
        /// 60 Hz mains (the Americas, parts of Asia).
        case hz60 = 2
        /// Chosen by the camera.
        case automatic = 3
    }
}
