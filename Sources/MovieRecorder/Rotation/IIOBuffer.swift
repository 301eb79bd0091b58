import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// An IIO device's buffer, set up to deliver the accelerometer's three axes (and the timestamp,
/// where the device has one) as whole scans through its character device, such as
/// `/dev/iio:device0`.
///
/// Opening takes the character device first, so a buffer another program holds is left alone
/// (the kernel lets one process open it). Then it enables the three axes, sets the device's own
/// trigger when none is set, and enables the buffer; ``close()`` puts back what it changed, in
/// reverse order. A device it cannot use is an ``Unavailable`` whose reason says why, and the
/// accelerometer polls sysfs instead.
final class IIOBuffer: Sendable {
    /// Why the buffer cannot be used.
    struct Unavailable: Error {
        let reason: String
    }

    /// The character device, such as `/dev/iio:device0`.
    let device: String
    /// Where each enabled channel sits in a scan.
    let layout: IIOScanLayout
    /// The open character device, non-blocking.
    let descriptor: Int32
    private let directory: String
    private let restore: [(file: String, text: String)]

    private init(device: String, layout: IIOScanLayout, descriptor: Int32, directory: String,
                 restore: [(file: String, text: String)]) {
        self.device = device
        self.layout = layout
        self.descriptor = descriptor
        self.directory = directory
        self.restore = restore
    }

    /// Sets up the buffer of the device whose sysfs directory is `directory`.
    /// - Parameters:
    ///   - device: the character device to read.
    ///   - name: the device's `name`, which names its own trigger (`NAME-devN`).
    /// - Throws: ``Unavailable`` naming the step that failed; nothing stays changed.
    static func open(directory: String, device: String, name: String?) throws(Unavailable) -> IIOBuffer {
        guard Sysfs.isDirectory(directory + "/scan_elements") else {
            throw Unavailable(reason: "the driver offers no buffer (no scan_elements)")
        }
        guard let enable = ["buffer0/enable", "buffer/enable"].first(where: { Sysfs.exists(directory + "/" + $0) }) else {
            throw Unavailable(reason: "the driver offers no buffer (no buffer/enable)")
        }
        let descriptor = Glibc.open(device, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let hint = code == EBUSY ? " — another program reads the buffer (iio-sensor-proxy?)" : ""
            throw Unavailable(reason: "cannot open \(device): \(String(cString: strerror(code)))\(hint)")
        }
        var changes = Changes(directory: directory)
        do throws(Unavailable) {
            guard trimmingSysfsWhitespace((try? Sysfs.text(directory, enable)) ?? "") != "1" else {
                throw Unavailable(reason: "\(enable) is already 1: another program uses the buffer")
            }
            try setTrigger(&changes, name: name)
            for axis in ["x", "y", "z"] { try changes.ensure("scan_elements/in_accel_\(axis)_en", "1") }
            if Sysfs.exists(directory + "/scan_elements/in_timestamp_en") {
                try changes.ensure("scan_elements/in_timestamp_en", "1")
            }
            let layout = try readLayout(directory)
            try changes.ensure(enable, "1")
            return IIOBuffer(device: device, layout: layout, descriptor: descriptor,
                             directory: directory, restore: changes.undo)
        } catch {
            changes.revert()
            Glibc.close(descriptor)
            throw error
        }
    }

    /// Disables the buffer and puts back the trigger and channels as they were; closes the device.
    func close() {
        var changes = Changes(directory: directory)
        changes.undo = restore
        changes.revert()
        Glibc.close(descriptor)
    }

    /// Sets the device's own trigger (`NAME-devN` among the IIO triggers beside the device)
    /// when the device takes a trigger and none is set.
    private static func setTrigger(_ changes: inout Changes, name: String?) throws(Unavailable) {
        let file = "trigger/current_trigger"
        let directory = changes.directory
        guard Sysfs.exists(directory + "/" + file) else { return }  // a hardware FIFO needs none
        guard trimmingSysfsWhitespace((try? Sysfs.text(directory, file)) ?? "").isEmpty else { return }
        let deviceName = directory.split(separator: "/").last.map(String.init) ?? directory
        let number = deviceName.hasPrefix("iio:device") ? String(deviceName.dropFirst("iio:device".count)) : "0"
        let own = "\(name ?? "")-dev\(number)"
        let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        let triggers = (Sysfs.entries(of: parent.isEmpty ? "." : parent) ?? []).filter { $0.hasPrefix("trigger") }
        let found = triggers.contains { (try? Sysfs.optionalText(parent + "/" + $0, "name")) == own }
        guard name != nil, found else {
            throw Unavailable(reason: "no trigger is set and the device has none of its own (\(own)); "
                              + "set one in \(directory)/\(file), such as an hrtimer trigger")
        }
        try changes.ensure(file, own)
    }

    /// The layout of every channel whose `_en` reads 1.
    private static func readLayout(_ directory: String) throws(Unavailable) -> IIOScanLayout {
        let scan = directory + "/scan_elements"
        var elements: [IIOScanLayout.Element] = []
        for entry in Sysfs.entries(of: scan) ?? [] where entry.hasSuffix("_en") {
            let channel = String(entry.dropLast(3))
            guard trimmingSysfsWhitespace((try? Sysfs.text(scan, entry)) ?? "") == "1" else { continue }
            let typeText = trimmingSysfsWhitespace((try? Sysfs.text(scan, channel + "_type")) ?? "")
            guard let type = IIOScanLayout.ElementType(parsing: typeText),
                  let index = Int(trimmingSysfsWhitespace((try? Sysfs.text(scan, channel + "_index")) ?? "")) else {
                throw Unavailable(reason: "cannot read \(scan)/\(channel)_type ('\(typeText)') or its _index")
            }
            elements.append(.init(name: channel, index: index, type: type))
        }
        return IIOScanLayout(elements: elements)
    }

    /// The sysfs writes made so far, and how to undo them.
    private struct Changes {
        let directory: String
        var undo: [(file: String, text: String)] = []

        /// Writes `value` to `file` unless it holds it already, remembering the old text.
        mutating func ensure(_ file: String, _ value: String) throws(Unavailable) {
            let old = trimmingSysfsWhitespace((try? Sysfs.text(directory, file)) ?? "")
            guard old != value else { return }
            if let failure = Sysfs.write(value, to: directory + "/" + file) {
                throw Unavailable(reason: "cannot write \(directory)/\(file): \(failure) — run as root, or grant "
                                  + "access to the buffer's files with a udev rule")
            }
            undo.append((file, old))
        }

        /// Undoes the writes, newest first.
        mutating func revert() {
            for change in undo.reversed() { _ = Sysfs.write(change.text, to: directory + "/" + change.file) }
            undo = []
        }
    }
}
