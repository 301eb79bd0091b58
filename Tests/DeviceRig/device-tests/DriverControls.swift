#if canImport(Glibc)
import Glibc
#endif
internal import CRigDrivers
import Synchronization

/// A V4L2 device's controls, found by the names `v4l2-ctl --list-ctrls` prints (`disconnect`,
/// `percentage_of_dropped_buffers`...), for driving vivid's fault injection from the test.
///
/// It opens the node a second time, beside the library's capture handle, as `v4l2-ctl -c`
/// would. Close it before unloading the driver: an open node keeps the module in use.
final class DriverControls: Sendable {
    let path: String
    private let descriptor: Mutex<Int32>

    init(path: String) throws(CaseError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw CaseError("opening \(path) for its controls: \(String(cString: strerror(errno)))") }
        descriptor = Mutex(fd)
    }

    deinit { close() }

    func close() {
        descriptor.withLock { fd in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
    }

    private var fd: Int32 { descriptor.withLock { $0 } }

    /// The name v4l2-ctl gives a control: its title in lower case, each run of other characters
    /// turned into one underscore ("Percentage of Dropped Buffers" → percentage_of_dropped_buffers).
    static func variableName(_ title: String) -> String {
        var name = ""
        var pendingUnderscore = false
        for character in title.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                if pendingUnderscore { name.append("_") }
                pendingUnderscore = false
                name.append(character)
            } else if !name.isEmpty {
                pendingUnderscore = true
            }
        }
        return name
    }

    /// Every control VIDIOC_QUERYCTRL enumerates (V4L2_CTRL_FLAG_NEXT_CTRL), by v4l2-ctl name.
    func list() -> [(name: String, id: UInt32, type: UInt32)] {
        var found: [(String, UInt32, UInt32)] = []
        var query = v4l2_queryctrl()
        query.id = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        while CRig_ioctl(fd, CRig_VIDIOC_QUERYCTRL(), &query) == 0 {
            let title = withUnsafeBytes(of: query.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 {
                found.append((Self.variableName(title), query.id, query.type))
            }
            query.id |= UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        }
        return found
    }

    /// Sets a control by name with VIDIOC_S_CTRL; a button control ignores the value.
    func set(_ name: String, _ value: Int32) throws(CaseError) {
        guard let control = list().first(where: { $0.name == name }) else {
            throw CaseError("\(path) has no control '\(name)'; it has: " + list().map(\.name).joined(separator: ","))
        }
        var setting = v4l2_control()
        setting.id = control.id
        setting.value = value
        guard CRig_ioctl(fd, CRig_VIDIOC_S_CTRL(), &setting) == 0 else {
            throw CaseError("setting \(name)=\(value) on \(path): \(String(cString: strerror(errno)))")
        }
    }
}
