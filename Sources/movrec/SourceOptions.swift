import MovieContainer
import MovieCapture
import MovieEncoding
import MovieRecorder

/// The video source `spec` names; `marksSeconds` makes the test pattern flash white at every
/// whole second (`--sync-marks`).
func makeVideoSource(_ spec: String, size: (Int, Int)?, frameRate: FrameRate?, marksSeconds: Bool = false) throws -> any VideoSource {
    if spec == "testsrc" {
        let (w, h) = size ?? (1280, 720)
        return try TestPatternSource(width: w, height: h, frameRate: frameRate ?? FrameRate(frames: 30), marksSeconds: marksSeconds)
    }
    if spec.hasSuffix(".y4m") {
        return try Y4MFileSource(path: spec)
    }
    if !spec.hasPrefix("/dev/"), CameraReplaySource.cameraFormat(forExtensionOf: spec) != nil {
        // Recorded camera buffers, through the path a camera's buffers take.
        return try CameraReplaySource(path: spec, width: size?.0, height: size?.1, frameRate: frameRate ?? FrameRate(frames: 30))
    }
    return try V4L2Camera(path: spec, width: size?.0, height: size?.1, frameRate: frameRate)
}

/// The audio source `spec` names; `marksSeconds` makes the tone click at every whole second
/// instead (`--sync-marks`), and `toneDrift` counts the tone's samples on a clock that many
/// parts per million off, as a microphone's are (`--tone-drift`).
func makeAudioSource(_ spec: String, marksSeconds: Bool = false, toneDrift: Int64? = nil) throws -> (any AudioSource)? {
    if toneDrift != nil && spec != "tone" { throw Arguments.UsageError(description: "--tone-drift needs --audio tone") }
    switch spec {
    case "none": return nil
    case "tone": return try ToneSource(marksSeconds: marksSeconds, crystal: toneDrift.map { SimulatedCrystal(partsPerMillion: $0) })
    default:
        if spec.hasSuffix(".wav") { return try WAVFileSource(path: spec) }
        return try ALSAMicrophone(device: spec)
    }
}

/// The accelerometer `--gravity` names, polled every `pollingInterval` (every 10 ms with
/// `--event-on-impact`, which needs a jolt's readings).
func makeGravitySource(_ spec: String, pollingInterval: Duration = .milliseconds(100)) throws -> any GravitySource {
    if spec == "manual" { return ManualGravitySource(.upright(rotatedClockwise: 0)) }
    guard spec == "iio" || spec.hasPrefix("iio:") else {
        throw Arguments.UsageError(description: "--gravity \(spec) is not iio, iio:NAME, iio:/sys/bus/iio/devices/iio:deviceN or manual")
    }
    let device = spec.dropFirst(4)
    if device.hasPrefix("/") { return try IIOAccelerometer(path: String(device), pollingInterval: pollingInterval) }
    return try IIOAccelerometer.find(named: device.isEmpty ? nil : String(device), pollingInterval: pollingInterval)
}

func parseMounting(_ text: String) throws -> CameraMounting {
    let parts = text.split(separator: ":")
    let rotation = parts.count > 1 ? Int(parts[1]) : 0
    guard let rotation, [0, 90, 180, 270].contains(rotation) else {
        throw Arguments.UsageError(description: "--mounting \(text) needs a sensor rotation of 0, 90, 180 or 270")
    }
    switch parts.first {
    case "front": return CameraMounting(position: .front, sensorRotation: rotation)
    case "back": return CameraMounting(position: .back, sensorRotation: rotation)
    case "external": return CameraMounting(position: .external, sensorRotation: rotation)
    default: throw Arguments.UsageError(description: "--mounting \(text) is not front, back or external[:ROTATION]")
    }
}
