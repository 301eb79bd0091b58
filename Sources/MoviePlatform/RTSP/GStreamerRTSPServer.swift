import MovieContainer
internal import CGStreamer

/// GStreamer's RTSP server (gst-rtsp-server) on a GLib main loop of its own thread: paths that
/// serve access units pushed to them, Digest authentication, and a say in who connects.
///
/// Pushing never blocks: an access unit is copied into an `appsrc` of the path's current media,
/// or not taken when no client watches. The library is opened on first use.
package final class GStreamerRTSPServer: @unchecked Sendable {
    // @unchecked: `server` is created in `init` and freed only by `stop()` after the loop's
    // thread has ended, behind `stopped`; GStreamer's calls on it are thread-safe.
    private let server: OpaquePointer
    private let context: Unmanaged<HooksBox>
    private let thread: DedicatedThread
    private let stopped = LockedValue(false)
    /// The port the server listens on.
    package let port: Int

    /// What the server asks about its clients, on its own thread.
    package struct Hooks: Sendable {
        /// Whether a client connecting from the address may come in.
        package var admit: @Sendable (String) -> Bool
        /// A client let in has gone.
        package var closed: @Sendable (String) -> Void
        package init(admit: @escaping @Sendable (String) -> Bool, closed: @escaping @Sendable (String) -> Void) {
            self.admit = admit
            self.closed = closed
        }
    }

    private final class HooksBox: Sendable {
        let hooks: Hooks
        init(_ hooks: Hooks) { self.hooks = hooks }
    }

    /// The GStreamer elements a stream of each kind needs, and the package that has them.
    package static let requiredElements = ["appsrc", "rtph264pay", "rtph265pay", "rtpmp4gpay", "rtpbin", "udpsink", "udpsrc"]

    /// Opens the library and checks the elements; nil when all is there, else what is missing
    /// and the packages to install.
    package static func load() -> String? {
        let packages = "install libgstrtspserver-1.0-0, gstreamer1.0-plugins-base and gstreamer1.0-plugins-good"
        if let failure = CGStreamer_load() { return "loading libgstrtspserver-1.0.so.0 failed (\(String(cString: failure))); \(packages)" }
        let missing = requiredElements.first { CGStreamer_hasElement($0) == 0 }
        return missing.map { "GStreamer has no element \($0); \(packages)" }
    }

    /// Binds `host`:`port` (0 for any free port) and starts serving on a thread of its own.
    /// - Parameters:
    ///   - credentials: user and password every client must give (Digest), or nil for none.
    ///   - maximumSessions: RTSP sessions at once, over all clients.
    ///   - sessionTimeout: seconds a session lives without a keep-alive.
    /// - Throws: ``GStreamerError`` when the library is missing or the address cannot be bound.
    package init(host: String, port: Int, credentials: (user: String, password: String)?, maximumSessions: Int,
                 sessionTimeout: Int, hooks: Hooks) throws(GStreamerError) {
        if let failure = Self.load() { throw GStreamerError(failure, isLibraryMissing: true) }
        let context = Unmanaged.passRetained(HooksBox(hooks))
        var error = [CChar](repeating: 0, count: 512)
        let created: OpaquePointer? = host.withCString { host in
            withOptionalCString(credentials?.user) { user in
                withOptionalCString(credentials?.password) { password in
                    var settings = CGStreamerSettings(
                        address: host, port: Int32(port), user: user, password: password,
                        maxSessions: UInt32(maximumSessions), sessionTimeout: UInt32(sessionTimeout),
                        admit: { raw, address in
                            let box = Unmanaged<HooksBox>.fromOpaque(raw!).takeUnretainedValue()
                            return box.hooks.admit(String(cString: address!)) ? 1 : 0
                        },
                        closed: { raw, address in
                            Unmanaged<HooksBox>.fromOpaque(raw!).takeUnretainedValue().hooks.closed(String(cString: address!))
                        },
                        context: context.toOpaque())
                    return CGStreamer_create(&settings, &error, error.count)
                }
            }
        }
        guard let created else {
            context.release()
            throw GStreamerError("\(host):\(port) cannot be listened on (\(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))")
        }
        server = created
        self.context = context
        self.port = Int(CGStreamer_port(created))
        let raw = UnsafeTransfer(created)
        thread = DedicatedThread(name: "movrec-rtsp") {
            // Below the recording: the server's own work (RTSP requests, RTCP) waits when the
            // processor is short; pushing does not depend on it.
            ThreadPriority.lower(by: 5)
            CGStreamer_run(raw.value)
        }
    }

    /// Serves `path` with the gst-launch description `launch`, whose `appsrc` elements are
    /// named `src0`, `src1`, …; `video` says which carry video. Replaces what the path served
    /// (its clients are closed and reconnect). Returns the path's number for ``push``, or nil
    /// when the server has 8 paths already.
    package func mount(_ path: String, launch: String, video: [Bool]) -> Int? {
        let flags = video.map { Int32($0 ? 1 : 0) }
        let number = flags.withUnsafeBufferPointer { CGStreamer_mount(server, path, launch, Int32(flags.count), $0.baseAddress) }
        return number < 0 ? nil : Int(number)
    }

    /// What became of an access unit pushed.
    package enum Pushed: Sendable { case taken, unwatched, dropped }

    /// Pushes an access unit to stream `stream` of path number `path`; times are capture times
    /// in nanoseconds since 1970. Never blocks.
    package func push(path: Int, stream: Int, bytes: [UInt8], presentation: UInt64, decode: UInt64, duration: UInt64,
                      keyframe: Bool) -> Pushed {
        let result = bytes.withUnsafeBufferPointer {
            CGStreamer_push(server, Int32(path), Int32(stream), $0.baseAddress, $0.count, presentation, decode, duration, keyframe ? 1 : 0)
        }
        return result > 0 ? .taken : result == 0 ? .unwatched : .dropped
    }

    /// Whether a client watches stream `stream` of path number `path`: its media exists.
    package func isWatched(path: Int, stream: Int) -> Bool { CGStreamer_isWatched(server, Int32(path), Int32(stream)) != 0 }

    /// SETUP requests refused because they named another destination or a multicast group.
    package var refusedDestinations: Int { Int(CGStreamer_refusedDestinations(server)) }

    /// Closes every client, ends the main loop and waits for its thread; blocks, so call it on a
    /// dedicated thread. Later calls do nothing.
    package func stop() {
        guard stopped.withLock({ s in defer { s = true }; return !s }) else { return }
        CGStreamer_quit(server)
        thread.join()
        CGStreamer_free(server)
        context.release()
    }

    deinit { stop() }
}

/// Why the RTSP server could not start.
package struct GStreamerError: Error, Sendable, CustomStringConvertible {
    package let message: String
    /// A Boolean value that indicates whether the library or an element is missing.
    package let isLibraryMissing: Bool
    package init(_ message: String, isLibraryMissing: Bool = false) {
        self.message = message
        self.isLibraryMissing = isLibraryMissing
    }
    package var description: String { message }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString(body)
}
