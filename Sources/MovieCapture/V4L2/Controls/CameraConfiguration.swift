import MoviePlatform
internal import CV4L2

/// A camera's controls held for changing, like `AVCaptureDevice` between `lockForConfiguration()`
/// and `unlockForConfiguration()`: only one part of a program holds a camera's lock at a time,
/// so two cannot fight over its settings.
///
/// Changes are checked against each control's range, step, menu and flags first, tried by the
/// driver (`VIDIOC_TRY_EXT_CTRLS`), then set in one call (`VIDIOC_S_EXT_CTRLS`), which drivers
/// apply atomically within a control class. A refused value throws ``CameraControlError`` naming
/// the control, the value and what the control allows.
public final class CameraConfiguration: @unchecked Sendable {
    // @unchecked: every use of the device and the control list goes through `lock`.
    private let device: V4L2Device
    private let lock = ConditionLock()
    private var released = false
    private var known: [CameraControl]
    private static let held = LockedValue<Set<String>>([])

    init(path: String) throws {
        guard Self.held.withLock({ $0.insert(path).inserted }) else {
            throw CameraControlError(.locked, device: path, control: "",
                                     "another part of this program holds the configuration lock; it must call unlockForConfiguration() first")
        }
        do {
            device = try V4L2Device(path: path)
        } catch {
            Self.held.withLock { _ = $0.remove(path) }
            throw error
        }
        known = device.queryControls()
    }

    deinit { unlockForConfiguration() }

    /// Gives the lock up; later calls on this object throw `notLocked`. Called by deinit too.
    public func unlockForConfiguration() {
        let path: String? = lock.withLock {
            guard !released else { return nil }
            released = true
            device.close()
            return device.path
        }
        if let path { Self.held.withLock { _ = $0.remove(path) } }
    }

    /// Every control with its current value.
    public func controls() throws -> [CameraControl] {
        try locked { known = device.queryControls(); return known }
    }

    /// The current value of a control.
    public func value(of id: CameraControlID) throws -> Int64 {
        try locked {
            let control = try find(id.rawValue)
            return try device.values(of: [control])[0]
        }
    }

    /// Sets controls by ID in one call.
    public func setValues(_ changes: [(CameraControlID, Int64)]) throws {
        try locked { try apply(try changes.map { (try find($0.0.rawValue), $0.1) }) }
    }

    /// Sets one control by ID.
    public func setValue(_ value: Int64, for id: CameraControlID) throws { try setValues([(id, value)]) }

    /// Sets one control by its key (`brightness`, `white_balance_automatic`…) or its driver name.
    public func setValue(_ value: Int64, forControlNamed name: String) throws {
        try setValues(named: [(name, value)])
    }

    /// Sets controls by key or driver name in one call.
    public func setValues(named changes: [(String, Int64)]) throws {
        try locked { try apply(try changes.map { (try find(named: $0.0), $0.1) }) }
    }

    /// The exposure mode, through ``CameraControlID/exposureMode``.
    public func setExposureMode(_ mode: CameraControlID.ExposureMode) throws { try setValue(mode.rawValue, for: .exposureMode) }

    /// The mains frequency to avoid flicker at, through ``CameraControlID/powerLineFrequency``.
    public func setPowerLineFrequency(_ frequency: CameraControlID.PowerLineFrequency) throws {
        try setValue(frequency.rawValue, for: .powerLineFrequency)
    }

    /// Exposure time, in V4L2's units of 100 µs, through ``CameraControlID/exposureTime``.
    public func setExposureDuration(_ duration: Duration) throws {
        let units = duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000
        try setValue(units, for: .exposureTime)
    }

    // MARK: Checking and applying

    private func locked<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            guard !released else {
                throw CameraControlError(.notLocked, device: device.path, control: "", "the configuration lock was given up; lock the camera again")
            }
            return try body()
        }
    }

    private func find(_ id: UInt32) throws -> CameraControl {
        guard let control = known.first(where: { $0.id == id }) else {
            throw CameraControlError(.notFound, device: device.path, control: "0x" + String(id, radix: 16),
                                     "the camera has no such control; `movrec controls \(device.path)` lists them")
        }
        return control
    }

    private func find(named name: String) throws -> CameraControl {
        let key = CameraControl.key(name)
        guard let control = known.first(where: { $0.key == key || $0.name == name }) else {
            throw CameraControlError(.notFound, device: device.path, control: name,
                                     "the camera has no such control; it has \(known.map(\.key).joined(separator: ", "))")
        }
        return control
    }

    private func apply(_ changes: [(CameraControl, Int64)]) throws {
        for (control, value) in changes { try check(control, value) }
        var values = changes.map(\.1)
        let controls = changes.map(\.0)
        for (request, step) in [(CV4L2_VIDIOC_TRY_EXT_CTRLS(), "trying"), (CV4L2_VIDIOC_S_EXT_CTRLS(), "setting")] {
            let (e, index) = device.extControls(request, controls, &values)
            guard e == 0 else {
                let control = index.map { controls[$0] } ?? controls[0]
                let code: CameraControlError.Code = e == EACCES ? .readOnly : (e == EINVAL || e == ERANGE ? .outOfRange : .failed)
                throw CameraControlError(code, device: device.path, control: control.key,
                                         "\(step) \(changes[index ?? 0].1) failed: \(String(cString: strerror(e))); \(Self.allowed(control))")
            }
        }
    }

    /// Refuses what the control's description already rules out, before the driver sees it.
    private func check(_ control: CameraControl, _ value: Int64) throws {
        func refuse(_ code: CameraControlError.Code, _ why: String) -> CameraControlError {
            CameraControlError(code, device: device.path, control: control.key, why)
        }
        if control.flags.contains(.readOnly) { throw refuse(.readOnly, "it is read-only; \(value) cannot be set") }
        guard control.isSupported else { throw refuse(.failed, "its kind (\(control.kind)) cannot be set here") }
        if control.kind == .button { return }
        let inRange = value >= control.minimum && value <= control.maximum
            && (control.step <= 1 || UInt64(value - control.minimum) % control.step == 0)
        let inMenu = control.menuItems.isEmpty || control.menuItems.contains { $0.value == value }
        guard inRange, inMenu else { throw refuse(.outOfRange, "\(value) is not allowed; \(Self.allowed(control))") }
    }

    private static func allowed(_ control: CameraControl) -> String {
        if !control.menuItems.isEmpty {
            return "it takes " + control.menuItems.map { "\($0.value) (\($0.name))" }.joined(separator: ", ")
        }
        return "it takes \(control.minimum)…\(control.maximum)" + (control.step > 1 ? " in steps of \(control.step)" : "")
    }
}

extension V4L2Camera {
    /// Every control the camera offers, with ranges and current values, without locking.
    /// - Throws: ``DeviceError`` when the device cannot be opened.
    public func controls() throws -> [CameraControl] {
        let device = try V4L2Device(path: self.device.path)
        defer { device.close() }
        return device.queryControls()
    }

    /// Takes the camera's configuration lock, as `AVCaptureDevice.lockForConfiguration()` does:
    /// the returned object changes controls until ``CameraConfiguration/unlockForConfiguration()``
    /// (or until it is released).
    /// - Throws: ``CameraControlError`` with `locked` when another part of the program holds it;
    ///   ``DeviceError`` when the device cannot be opened.
    public func lockForConfiguration() throws -> CameraConfiguration {
        try CameraConfiguration(path: device.path)
    }
}
