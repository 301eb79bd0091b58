import MovieContainer
#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own for blocking work — device reads, encoding, file writes — so it never
/// occupies a thread of Swift's cooperative pool.
package final class DedicatedThread: @unchecked Sendable {
    // @unchecked: `thread` is written once in `init` before anything else can see the object,
    // and read only by `join()`.
    private var thread = pthread_t()
    private let name: String

    private final class Box {
        let body: () -> Void
        let name: String
        init(_ name: String, _ body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread named `name` (at most 15 characters show in `top`).
    package init(name: String, _ body: @escaping @Sendable () -> Void) {
        self.name = name
        let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
        let result = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            DedicatedThread.nameCurrentThread(box.name)
            box.body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed for \(name): \(result)")
    }

    /// Names the calling thread for `top -H`, `ps -L` and debuggers by writing its `comm` file
    /// (proc(5)), as glibc's `pthread_setname_np` does; Swift's Glibc module does not export that
    /// function. The kernel keeps the first 15 bytes.
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Waits for the thread to end.
    package func join() {
        pthread_join(thread, nil)
    }

    /// Lets the thread's resources go when it ends, for a thread nobody joins.
    package func detach() {
        pthread_detach(thread)
    }
}
