import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// An accelerometer the Linux kernel's Industrial I/O subsystem exposes in sysfs, read as the
/// device's gravity vector.
///
/// Each axis is read from its `in_accel_{x,y,z}_raw` file and converted to m/s² as
/// `(raw + offset) × scale` (Documentation/ABI/testing/sysfs-bus-iio). A per-axis
/// `in_accel_x_scale` or `in_accel_x_offset` wins over the shared `in_accel_scale` or
/// `in_accel_offset`; the offset is optional, a scale is required. The scale and offset files
/// are read with every reading, since writing a new range to `in_accel_scale` changes them.
/// The result is then turned from the chip's axes into the device's by the mount matrix
/// (`in_accel_mount_matrix`, `in_mount_matrix` or `mount_matrix`, in that order), or left as it
/// is when the driver publishes none.
///
/// ``read()`` reads once, on the caller's thread. ``start(handler:)`` reports readings on a
/// dedicated thread, in one of two ways (``readingMethod`` says which):
/// - **From the buffer**, where the driver offers one (`scan_elements`, and a trigger set or
///   the device's own `NAME-devN` trigger to set): whole samples, every axis from one instant,
///   read from the character device (`/dev/iio:deviceN`) at the device's own rate
///   (`sampling_frequency`), each with the time the device stamped on it. `start` enables the
///   three axes and the timestamp, sets the trigger and enables the buffer; ``stop()`` puts them
///   back. This needs write access to the device's sysfs files (root, or a udev rule) and a
///   buffer no other program holds (iio-sensor-proxy may).
/// - **By polling** the `_raw` files every ``pollingInterval`` otherwise, the first reading at
///   once. Sysfs gives each axis's newest value on its own read, so a reading taken while the
///   sensor updates can mix two instants (new x, old y and z); ``ImpactDetector`` looks at a
///   window of readings so such a torn reading cannot hide a bump.
///
/// A poll or read that fails is skipped (a sensor can fail for a moment around suspend) and
/// kept in ``lastPollingError``. ``stop()`` interrupts the wait between polls, or for the next
/// sample, so it returns within one reading, however long the interval. `start` while reporting
/// throws ``GravitySourceError/Code/alreadyRunning``; after `stop` it starts again. Releasing
/// the last reference stops the reporting.
public final class IIOAccelerometer: GravitySource, TimedGravitySource {
    /// The device's sysfs directory, such as `/sys/bus/iio/devices/iio:device0`.
    public let path: String
    /// The chip's name from the device's `name` file, such as `bmc150_accel`, if it has one.
    public let name: String?
    /// The device's `label` file, such as `accel-display` on a convertible, if it has one.
    public let label: String?
    /// The matrix that takes readings from the chip's axes to the device's.
    package let mountMatrix: MountMatrix
    /// The time between polls after ``start(handler:)``.
    public let pollingInterval: Duration
    /// The buffer's character device read after ``start(handler:)``, such as
    /// `/dev/iio:device0`, or `nil` to poll only.
    public let bufferDevice: String?

    private let channels: Channels
    private let readings = Readings()
    private let thread: SourceThread

    /// Opens the accelerometer whose sysfs directory is `path`.
    /// - Parameters:
    ///   - path: The device directory, such as `/sys/bus/iio/devices/iio:device0`.
    ///   - pollingInterval: The time between polls after ``start(handler:)``; positive.
    /// - Throws: ``GravitySourceError`` with ``GravitySourceError/Code/notFound`` when `path`
    ///   is not a directory, ``GravitySourceError/Code/missingFile`` when an axis has no `_raw`
    ///   file or no scale file, ``GravitySourceError/Code/unreadable`` or
    ///   ``GravitySourceError/Code/malformed`` for a `name`, `label` or mount matrix file that
    ///   cannot be read, and ``GravitySourceError/Code/invalidMountMatrix`` for a mount matrix
    ///   that is not three rows of three numbers or is singular.
    public convenience init(path: String, pollingInterval: Duration = .milliseconds(100)) throws(GravitySourceError) {
        let device = path.split(separator: "/").last.map { "/dev/" + $0 }
        try self.init(path: path, pollingInterval: pollingInterval, bufferDevice: device)
    }

    /// Opens the accelerometer whose sysfs directory is `path`, reading its buffer through
    /// `bufferDevice` where the driver offers one.
    /// - Parameters:
    ///   - path: The device directory, such as `/sys/bus/iio/devices/iio:device0`.
    ///   - pollingInterval: The time between polls when the buffer is not used; positive.
    ///   - bufferDevice: The buffer's character device, such as `/dev/iio:device0` (where
    ///     ``init(path:pollingInterval:)`` looks), or `nil` to poll the sysfs files only.
    /// - Throws: The errors of ``init(path:pollingInterval:)``.
    public init(path: String, pollingInterval: Duration, bufferDevice: String?) throws(GravitySourceError) {
        precondition(pollingInterval > .zero, "the polling interval must be positive, not \(pollingInterval)")
        let directory = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard Sysfs.isDirectory(directory) else {
            throw GravitySourceError(.notFound, path: directory,
                                     "no such IIO device directory — list /sys/bus/iio/devices, "
                                     + "or use IIOAccelerometer.find() to pick the accelerometer")
        }
        self.path = directory
        self.pollingInterval = pollingInterval
        self.bufferDevice = bufferDevice
        name = try Sysfs.optionalText(directory, "name")
        label = try Sysfs.optionalText(directory, "label")
        channels = try Channels(directory: directory)
        mountMatrix = try Self.readMountMatrix(directory)
        thread = SourceThread(sourceName: directory, threadName: "iio accel")
    }

    /// Finds an accelerometer among the IIO devices.
    ///
    /// Devices are tried in the order of their numbers (`iio:device0`, `iio:device1`, …); only
    /// those with all three `in_accel_{x,y,z}_raw` files count. Without a name, the first one
    /// is taken, except that one labelled `accel-display` wins: a convertible with a hinge has
    /// a second accelerometer, labelled `accel-base`, in its keyboard half, which does not turn
    /// with the screen and the cameras.
    /// - Parameters:
    ///   - name: The text of the device's `name` file (such as `bmc150_accel`) or `label` file
    ///     (such as `accel-display`) to choose, or `nil` for the first accelerometer.
    ///   - root: The directory holding the devices.
    ///   - pollingInterval: The time between polls after ``start(handler:)``.
    /// - Throws: ``GravitySourceError`` with ``GravitySourceError/Code/notFound`` when `root`
    ///   cannot be listed or holds no matching accelerometer, or any error of
    ///   ``init(path:pollingInterval:)`` for the device found.
    public static func find(named name: String? = nil, in root: String = "/sys/bus/iio/devices",
                            pollingInterval: Duration = .milliseconds(100)) throws(GravitySourceError) -> IIOAccelerometer {
        guard let entries = Sysfs.entries(of: root) else {
            throw GravitySourceError(.notFound, path: root,
                                     "cannot list the IIO devices (\(String(cString: strerror(errno)))) — "
                                     + "this kernel may lack IIO support (CONFIG_IIO), or the path is wrong")
        }
        let devices = entries.compactMap { entry -> (number: Int, directory: String)? in
            guard entry.hasPrefix("iio:device"), let number = Int(entry.dropFirst("iio:device".count)) else { return nil }
            return (number, root + "/" + entry)
        }.sorted { $0.number < $1.number }.map(\.directory)

        var seen: [String] = []
        var accelerometers: [(directory: String, name: String?, label: String?)] = []
        for directory in devices {
            let deviceName = try? Sysfs.optionalText(directory, "name")
            let deviceLabel = try? Sysfs.optionalText(directory, "label")
            let isAccelerometer = ["x", "y", "z"].allSatisfy { Sysfs.exists(directory + "/in_accel_\($0)_raw") }
            seen.append((directory.split(separator: "/").last.map(String.init) ?? directory)
                        + " (" + (deviceName ?? "no name") + (isAccelerometer ? ", accelerometer" : "") + ")")
            if isAccelerometer { accelerometers.append((directory, deviceName, deviceLabel)) }
        }
        let chosen: String?
        if let name {
            chosen = accelerometers.first { $0.name == name || $0.label == name }?.directory
        } else {
            chosen = (accelerometers.first { $0.label == "accel-display" } ?? accelerometers.first)?.directory
        }
        guard let chosen else {
            let wanted = name.map { "no accelerometer named '\($0)'" } ?? "no accelerometer (a device with in_accel_x_raw, in_accel_y_raw and in_accel_z_raw)"
            let found = seen.isEmpty ? "there are no IIO devices" : "found " + seen.joined(separator: ", ")
            throw GravitySourceError(.notFound, path: root,
                                     "\(wanted); \(found) — check that the sensor's driver is loaded (dmesg, lsmod), "
                                     + "or set the device's rotation by hand with ManualGravitySource")
        }
        return try IIOAccelerometer(path: chosen, pollingInterval: pollingInterval)
    }

    /// The latest reading, by ``read()`` or by polling, or `nil` before the first.
    public var currentGravity: GravityVector? { readings.latest.withLock { $0 } }

    /// The error of the latest poll that failed, or `nil` when none has failed since the last
    /// reading that succeeded.
    public var lastPollingError: GravitySourceError? { readings.failure.withLock { $0 } }

    /// Reads the three axes once, on the calling thread.
    /// - Returns: The device's gravity vector in m/s², in the device's frame.
    /// - Throws: ``GravitySourceError`` naming the file that is missing
    ///   (``GravitySourceError/Code/missingFile``), cannot be read
    ///   (``GravitySourceError/Code/unreadable``) or does not hold a number
    ///   (``GravitySourceError/Code/malformed``).
    public func read() throws(GravitySourceError) -> GravityVector {
        let g = mountMatrix.apply(try channels.read())
        readings.latest.withLock { $0 = g }
        return g
    }

    /// How the readings reach the handler since the last ``start(handler:)``, or `nil` before
    /// the first.
    public var readingMethod: ReadingMethod? { readings.method.withLock { $0 } }

    /// Reads once on the calling thread, then starts reporting on a dedicated thread: whole
    /// samples from the buffer where the device offers one, else a poll at once and one every
    /// ``pollingInterval``; each reading is handed to `handler` on that thread, in order.
    /// - Throws: ``GravitySourceError`` with ``GravitySourceError/Code/alreadyRunning`` while
    ///   reporting.
    public func start(handler: @escaping @Sendable (GravityVector) -> Void) throws(GravitySourceError) {
        try start(timedHandler: { gravity, _ in handler(gravity) })
    }

    /// ``start(handler:)``, with the time each reading was taken on `MonotonicClock`.
    package func start(timedHandler handler: @escaping @Sendable (GravityVector, UInt64) -> Void) throws(GravitySourceError) {
        // One reading now, so ``currentGravity`` holds the device's rotation before this returns
        // and a coordinator starts from it (nothing stays sideways until the first poll).
        _ = try? read()
        let previousMethod = readingMethod
        let buffered = openBuffer()
        do {
            if let buffered {
                try thread.start { [readings] run in
                    Self.readBuffer(buffered.buffer, calibration: buffered.calibration, readings: readings, run: run, handler: handler)
                }
            } else {
                try thread.start { [channels, mountMatrix, readings, pollingInterval] run in
                    Self.poll(channels, matrix: mountMatrix, every: pollingInterval, readings: readings, run: run, handler: handler)
                }
            }
        } catch {
            buffered?.buffer.close()
            readings.method.withLock { $0 = previousMethod }
            throw GravitySourceError(.alreadyRunning, path: path,
                                     "the accelerometer is already being read; call stop() before starting it again")
        }
    }

    /// Sets up the buffer, or notes in ``readingMethod`` why polling it is.
    private func openBuffer() -> (buffer: IIOBuffer, calibration: Calibration)? {
        guard let bufferDevice else {
            readings.method.withLock { $0 = .polling(reason: "no buffer device was given") }
            return nil
        }
        do {
            let calibration = try Calibration(channels, matrix: mountMatrix)
            let buffer = try IIOBuffer.open(directory: path, device: bufferDevice, name: name)
            readings.method.withLock { $0 = .buffer(device: bufferDevice) }
            return (buffer, calibration)
        } catch let error as IIOBuffer.Unavailable {
            readings.method.withLock { $0 = .polling(reason: error.reason) }
        } catch {
            readings.method.withLock { $0 = .polling(reason: "\(error)") }
        }
        return nil
    }

    /// Polls the sysfs files until a stop is requested.
    private static func poll(_ channels: Channels, matrix: MountMatrix, every pollingInterval: Duration, readings: Readings,
                             run: CaptureRun, handler: @Sendable (GravityVector, UInt64) -> Void) {
        let interval = nanoseconds(pollingInterval)
        var due = MonotonicClock.now()
        while !run.isStopRequested {
            do throws(GravitySourceError) {
                let g = matrix.apply(try channels.read())
                readings.latest.withLock { $0 = g }
                readings.failure.withLock { $0 = nil }
                handler(g, MonotonicClock.now())
            } catch {
                readings.failure.withLock { $0 = error }
            }
            // A late poll (a slow driver or handler) is followed by a full interval,
            // not by readings back to back to catch up.
            let now = MonotonicClock.now()
            due = due &+ interval
            if due <= now { due = now &+ interval }
            guard run.wait(until: due) else { return }
        }
    }

    /// Stops reporting and waits for the reading thread to end (the buffer, if it was used, is
    /// put back as it was). Called from the handler, it returns at once and no reading follows.
    public func stop() { thread.stop() }

    // MARK: - Reading sysfs

    /// What the polling thread updates: the latest reading and the latest failure.
    final class Readings: Sendable {
        let latest = LockedValue<GravityVector?>(nil)
        let failure = LockedValue<GravitySourceError?>(nil)
        let method = LockedValue<ReadingMethod?>(nil)
    }

    /// The files one axis is read from.
    struct Channel: Sendable {
        let raw: String
        let scale: String
        let offset: String?
    }

    /// The three axes' files in a device directory, found once when the device is opened.
    struct Channels: Sendable {
        let directory: String
        let x: Channel
        let y: Channel
        let z: Channel

        init(directory: String) throws(GravitySourceError) {
            func channel(_ axis: String) throws(GravitySourceError) -> Channel {
                let raw = "in_accel_\(axis)_raw"
                guard Sysfs.exists(directory + "/" + raw) else {
                    throw GravitySourceError(.missingFile, path: directory, file: raw,
                                             "no such file: this IIO device is not a three-axis accelerometer — use IIOAccelerometer.find() to pick one")
                }
                let scale = ["in_accel_\(axis)_scale", "in_accel_scale"].first { Sysfs.exists(directory + "/" + $0) }
                guard let scale else {
                    throw GravitySourceError(.missingFile, path: directory, file: "in_accel_scale",
                                             "no such file, nor in_accel_\(axis)_scale: without a scale the raw counts cannot "
                                             + "be turned into m/s² — the driver is too old or does not follow the IIO ABI")
                }
                let offset = ["in_accel_\(axis)_offset", "in_accel_offset"].first { Sysfs.exists(directory + "/" + $0) }
                return Channel(raw: raw, scale: scale, offset: offset)
            }
            self.directory = directory
            x = try channel("x")
            y = try channel("y")
            z = try channel("z")
        }

        /// Reads the three axes in the chip's frame, in m/s².
        func read() throws(GravitySourceError) -> GravityVector {
            var values: [String: Double] = [:]
            return GravityVector(x: try value(x, raw: nil, &values), y: try value(y, raw: nil, &values),
                                 z: try value(z, raw: nil, &values))
        }

        /// One axis in m/s²: `raw` counts, or the `_raw` file's when `nil`. A shared scale or
        /// offset file is read once per reading (`values`), not once per axis.
        func value(_ channel: Channel, raw: Double?, _ values: inout [String: Double]) throws(GravitySourceError) -> Double {
            func number(_ file: String) throws(GravitySourceError) -> Double {
                if let known = values[file] { return known }
                let number = try Sysfs.number(directory, file)
                values[file] = number
                return number
            }
            var counts = 0.0
            if let raw { counts = raw } else { counts = try number(channel.raw) }
            var offset = 0.0
            if let file = channel.offset { offset = try number(file) }
            return (counts + offset) * (try number(channel.scale))
        }
    }

    /// The device's mount matrix, or the identity when it publishes none.
    private static func readMountMatrix(_ directory: String) throws(GravitySourceError) -> MountMatrix {
        for file in ["in_accel_mount_matrix", "in_mount_matrix", "mount_matrix"] where Sysfs.exists(directory + "/" + file) {
            let text = try Sysfs.text(directory, file)
            do {
                return try MountMatrix(parsing: text)
            } catch {
                throw GravitySourceError(.invalidMountMatrix, path: directory, file: file,
                                         "'\(trimmingSysfsWhitespace(text))' is not a usable mount matrix: \(error.reason) — "
                                         + "the kernel writes it as \"x1, y1, z1; x2, y2, z2; x3, y3, z3\"; "
                                         + "fix the device tree's or ACPI table's mount-matrix, or report the driver")
            }
        }
        return .identity
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
