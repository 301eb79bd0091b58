#if canImport(Glibc)
import Glibc
#endif
internal import CV4L2

extension V4L2Device {
    /// Every control the driver offers, control-class headings left out, with menu entries and
    /// current values.
    package func queryControls() -> [CameraControl] {
        let nextControl: UInt32 = 0x8000_0000, nextCompound: UInt32 = 0x4000_0000  // V4L2_CTRL_FLAG_NEXT_*
        var found: [CameraControl] = []
        var id: UInt32 = 0
        for _ in 0..<1024 {
            var query = v4l2_query_ext_ctrl()
            query.id = id | nextControl | nextCompound
            guard ioctl(CV4L2_VIDIOC_QUERY_EXT_CTRL(), &query) == 0 else { break }
            id = query.id
            if query.type == V4L2_CTRL_TYPE_CTRL_CLASS.rawValue { continue }
            var control = CameraControl(
                id: query.id, name: withUnsafeBytes(of: query.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) },
                kind: Self.kind(query.type, elements: query.elems), minimum: query.minimum, maximum: query.maximum,
                step: query.step, defaultValue: query.default_value, value: nil,
                flags: CameraControl.Flags(rawValue: query.flags), menuItems: [])
            if control.flags.contains(.disabled) { continue }
            if control.kind == .menu || control.kind == .integerMenu { control.menuItems = menuItems(of: control) }
            if control.isSupported, control.kind != .button, !control.flags.contains(.writeOnly) {
                control.value = try? values(of: [control]).first
            }
            found.append(control)
        }
        return found
    }

    private static func kind(_ type: UInt32, elements: UInt32) -> CameraControl.Kind {
        guard elements <= 1 else { return .unsupported(type) }
        switch type {
        case V4L2_CTRL_TYPE_INTEGER.rawValue: return .integer
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: return .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: return .menu
        case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: return .integerMenu
        case V4L2_CTRL_TYPE_BUTTON.rawValue: return .button
        case V4L2_CTRL_TYPE_INTEGER64.rawValue: return .integer64
        case V4L2_CTRL_TYPE_BITMASK.rawValue: return .bitmask
        case V4L2_CTRL_TYPE_STRING.rawValue: return .string
        default: return .unsupported(type)
        }
    }

    private func menuItems(of control: CameraControl) -> [CameraControl.MenuItem] {
        guard control.minimum >= 0, control.maximum >= control.minimum, control.maximum - control.minimum < 256 else { return [] }
        return (control.minimum...control.maximum).compactMap { index in
            var item = v4l2_querymenu()
            item.id = control.id
            item.index = UInt32(index)
            guard ioctl(CV4L2_VIDIOC_QUERYMENU(), &item) == 0 else { return nil }
            let name = control.kind == .integerMenu ? String(item.value)
                : withUnsafeBytes(of: item.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return CameraControl.MenuItem(value: index, name: name)
        }
    }

    /// The current values of `controls`, read in one call.
    package func values(of controls: [CameraControl]) throws(DeviceError) -> [Int64] {
        var values = [Int64](repeating: 0, count: controls.count)
        let e = extControls(CV4L2_VIDIOC_G_EXT_CTRLS(), controls, &values).errno
        guard e == 0 else { throw .v4l2(e, device: path, step: "reading controls (VIDIOC_G_EXT_CTRLS)") }
        return values
    }

    /// Tries (`VIDIOC_TRY_EXT_CTRLS`) or sets (`VIDIOC_S_EXT_CTRLS`) `values` in one call.
    /// Returns the errno and the index of the control the driver refused (nil when it names none).
    package func extControls(_ request: UInt, _ controls: [CameraControl], _ values: inout [Int64]) -> (errno: Int32, index: Int?) {
        let ids = controls.map(\.id)
        let is64 = controls.map { $0.kind == .integer64 ? UInt8(1) : 0 }
        var errorIndex: UInt32 = 0
        let e = CV4L2_extControls(fd, request, UInt32(controls.count), ids, is64, &values, &errorIndex)
        return (e, Int(errorIndex) < controls.count ? Int(errorIndex) : nil)
    }
}
