import MovieCapture

/// `movrec controls`: a camera's controls, read and set.
enum ControlsCommand {
    static let usage = """
        controls DEVICE [NAME=VALUE ...]
            List the camera's controls with their ranges, defaults and values, or set them (in
            one call, under the camera's configuration lock) and list them after. NAME is the
            control's key as listed (brightness, power_line_frequency, ...); VALUE an integer,
            true or false.
        """
}

/// `movrec controls DEVICE [NAME=VALUE ...]`
func controls(_ args: inout Arguments) throws -> Int32 {
    try args.finish(positionalCount: 1...64)
    let camera = try V4L2Camera(path: args.positional[0])
    let configuration = try applyControls(Array(args.positional.dropFirst()), to: camera)
    for control in try configuration.controls() { print(control.description) }
    configuration.unlockForConfiguration()
    return 0
}

/// Locks `camera`'s configuration and sets `assignments` (`NAME=VALUE`) in one call; the lock
/// stays with the returned object.
func applyControls(_ assignments: [String], to camera: V4L2Camera) throws -> CameraConfiguration {
    let configuration = try camera.lockForConfiguration()
    var changes: [(name: String, value: Int64)] = []
    for assignment in assignments {
        let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
        let value = parts.count == 2 ? (parts[1] == "true" ? 1 : parts[1] == "false" ? 0 : Int64(parts[1])) : nil
        guard let value else {
            throw Arguments.UsageError(description: "\(assignment) is not NAME=VALUE with an integer, true or false")
        }
        changes.append((parts[0], value))
    }
    if !changes.isEmpty { try configuration.setValues(named: changes.map { ($0.name, $0.value) }) }
    return configuration
}
