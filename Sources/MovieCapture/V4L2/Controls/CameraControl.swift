/// One control a V4L2 camera offers (`VIDIOC_QUERY_EXT_CTRL`): brightness, exposure, focus…,
/// with its range, default and current value.
public struct CameraControl: Hashable, Sendable, CustomStringConvertible {
    /// What kind of value a control takes.
    public enum Kind: Hashable, Sendable {
        /// A 32-bit integer in a range, with a step.
        case integer
        /// On (1) or off (0).
        case boolean
        /// One of named entries (``CameraControl/menuItems``).
        case menu
        /// One of integer entries, such as link frequencies.
        case integerMenu
        /// An action with no value, such as "focus once".
        case button
        /// A 64-bit integer.
        case integer64
        /// A set of bits.
        case bitmask
        /// Text: listed, not read or set here.
        case string
        /// A compound or otherwise unsupported type (arrays, areas, codec structures): listed,
        /// not read or set. The associated value is V4L2's type code.
        case unsupported(UInt32)
    }

    /// The driver's flags on a control.
    public struct Flags: OptionSet, Hashable, Sendable {
        /// V4L2's `V4L2_CTRL_FLAG_*` bits.
        public let rawValue: UInt32
        /// Creates flags from V4L2's `V4L2_CTRL_FLAG_*` bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// The control cannot be changed (`V4L2_CTRL_FLAG_READ_ONLY`).
        public static let readOnly = Flags(rawValue: 0x0004)
        /// Another control's setting makes this one irrelevant for now, such as exposure time
        /// under automatic exposure (`V4L2_CTRL_FLAG_INACTIVE`).
        public static let inactive = Flags(rawValue: 0x0010)
        /// Streaming holds it fixed (`V4L2_CTRL_FLAG_GRABBED`).
        public static let grabbed = Flags(rawValue: 0x0002)
        /// The driver does not offer it (`V4L2_CTRL_FLAG_DISABLED`).
        public static let disabled = Flags(rawValue: 0x0001)
        /// It can be set but not read (`V4L2_CTRL_FLAG_WRITE_ONLY`).
        public static let writeOnly = Flags(rawValue: 0x0040)
        /// The hardware changes it by itself (`V4L2_CTRL_FLAG_VOLATILE`).
        public static let volatile = Flags(rawValue: 0x0080)
    }

    /// A menu entry: its value and its name (for an integer menu, the integer as text).
    public struct MenuItem: Hashable, Sendable {
        /// The value that selects it.
        public var value: Int64
        /// The name the driver gives it.
        public var name: String
    }

    /// The V4L2 control ID, such as `0x00980900` for brightness.
    public var id: UInt32
    /// The driver's name for it, such as "Brightness".
    public var name: String
    /// The kind of value.
    public var kind: Kind
    /// The lowest value.
    public var minimum: Int64
    /// The highest value.
    public var maximum: Int64
    /// The step between valid values.
    public var step: UInt64
    /// The value the driver starts with.
    public var defaultValue: Int64
    /// The current value; `nil` for buttons, write-only and unsupported controls.
    public var value: Int64?
    /// The driver's flags.
    public var flags: Flags
    /// A menu's entries; empty for other kinds.
    public var menuItems: [MenuItem]

    /// The name as `movrec` and ``CameraConfiguration/setValue(_:forControlNamed:)`` take it:
    /// lower case with underscores, such as `brightness` or `white_balance_automatic`, as
    /// v4l2-ctl prints it.
    public var key: String { Self.key(name) }

    /// Whether the control can be read and set here.
    public var isSupported: Bool {
        if case .unsupported = kind { return false }
        return kind != .string
    }

    /// One line as `movrec devices` prints it: key, kind, range, default, value, flags.
    public var description: String {
        var text = "\(key) (\(kindName)): "
        switch kind {
        case .unsupported, .string: text += "not supported here"
        case .button: text += "button"
        default: text += "\(minimum)…\(maximum)" + (step > 1 ? " step \(step)" : "") + ", default \(defaultValue)"
            + (value.map { ", value \($0)" } ?? "")
        }
        if !menuItems.isEmpty { text += " [" + menuItems.map { "\($0.value): \($0.name)" }.joined(separator: ", ") + "]" }
        let flagNames = [(Flags.readOnly, "read-only"), (.inactive, "inactive"), (.grabbed, "grabbed"), (.writeOnly, "write-only"),
                         (.volatile, "volatile")].filter { flags.contains($0.0) }.map(\.1)
        return text + (flagNames.isEmpty ? "" : " (" + flagNames.joined(separator: ", ") + ")")
    }

    private var kindName: String {
        switch kind {
        case .integer: "int"
        case .boolean: "bool"
        case .menu: "menu"
        case .integerMenu: "intmenu"
        case .button: "button"
        case .integer64: "int64"
        case .bitmask: "bitmask"
        case .string: "string"
        case .unsupported(let type): "type 0x\(String(type, radix: 16))"
        }
    }

    /// v4l2-ctl's form of a control name: lower case, letters and digits kept, the rest as one
    /// underscore.
    static func key(_ name: String) -> String {
        var key = ""
        for character in name.lowercased() {
            if character.isLetter || character.isNumber {
                key.append(character)
            } else if !key.isEmpty, key.last != "_" {
                key.append("_")
            }
        }
        while key.last == "_" { key.removeLast() }
        return key
    }
}
