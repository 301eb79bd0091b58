import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// `movrec devices`: cameras, hardware encoders and microphones.
enum DevicesCommand {
    static let usage = """
        devices
            List cameras with their formats, sizes and frame rates and their controls (ranges,
            defaults, values, flags), hardware encoders (V4L2 memory-to-memory devices: what they
            make and take; `record --encoder DEVICE`), and microphones.
        """
}

/// `movrec devices`
func devices(_ args: inout Arguments) throws -> Int32 {
    try args.finish(positionalCount: 0...0)
    let cameras = V4L2Camera.devices()
    print("cameras:")
    if cameras.isEmpty { print("  (none: no /dev/video* capture device, or no permission — add the user to the 'video' group)") }
    for camera in cameras {
        print("  " + camera.description)
        let controls = (try? V4L2Camera(path: camera.path).controls()) ?? []
        if !controls.isEmpty { print("    controls:") }
        for control in controls { print("      " + control.description) }
    }
    let encoders = VideoEncoderDevice.devices()
    print("encoders:")
    if encoders.isEmpty { print("  (none: no V4L2 memory-to-memory encoder; recordings use x264 or x265)") }
    for encoder in encoders { print("  " + encoder.description) }
    let microphones = ALSAMicrophone.devices()
    print("microphones:")
    if microphones.isEmpty { print("  (none found by ALSA)") }
    for mic in microphones { print("  \(mic.name): \(mic.description)") }
    print("synthetic: --video testsrc, --audio tone; files: --video FILE.y4m, --video FILE.yuyv|.mjpeg|… (recorded camera buffers), --audio FILE.wav")
    return 0
}
