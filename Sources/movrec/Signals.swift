import MovieContainer
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import Synchronization
import Dispatch

/// The first SIGINT or SIGTERM received, 0 before: stored by the signal handler (a lock-free
/// atomic store is async-signal-safe) and read by the recording loop when the pipe wakes it.
let receivedSignal = Atomic<Int32>(0)

/// How many SIGUSR1s were received: each asks `movrec record` for an event clip. Counted by
/// the handler (an atomic add is async-signal-safe), read by the recording loop when the pipe
/// wakes it.
let eventSignalCount = Atomic<Int>(0)

/// The pipe the signal handler writes a byte into (`write` is async-signal-safe), so the
/// recording loop is woken by a signal instead of polling for one: set once, before the
/// handlers are installed, and only read afterwards.
nonisolated(unsafe) var signalPipe: (read: Int32, write: Int32) = (-1, -1)

/// Sets how signals end the command. Past a file size limit (ulimit -f) a write fails with
/// EFBIG instead of killing the process, so a movie can still be finalized. With `cleanStop`
/// (`movrec record`, `movrec live`), the first SIGINT or SIGTERM asks the recording loop for a
/// clean stop and a second one leaves at once, and SIGUSR1 asks for an event clip; every other
/// command keeps the default, so a signal always ends it.
func installSignalHandlers(cleanStop: Bool) {
    signal(SIGXFSZ, SIG_IGN)
    guard cleanStop else { return }
    _ = receivedSignal.load(ordering: .relaxed)  // initialise the global before a handler can touch it
    var ends: [Int32] = [-1, -1]
    if pipe(&ends) == 0 {
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)  // a full pipe never blocks the handler
        }
        signalPipe = (ends[0], ends[1])
    }
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signal in
        if receivedSignal.exchange(signal, ordering: .relaxed) != 0 { _exit(128 + signal) }
        var byte: UInt8 = 1
        _ = write(signalPipe.write, &byte, 1)
    }
    sigemptyset(&action.sa_mask)
    sigaction(SIGINT, &action, nil)
    sigaction(SIGTERM, &action, nil)
    _ = eventSignalCount.load(ordering: .relaxed)
    var event = sigaction()
    event.__sigaction_handler.sa_handler = { _ in
        eventSignalCount.add(1, ordering: .relaxed)
        var byte: UInt8 = 2
        _ = write(signalPipe.write, &byte, 1)
    }
    sigemptyset(&event.sa_mask)
    event.sa_flags = SA_RESTART
    sigaction(SIGUSR1, &event, nil)
    // A parent may have blocked them (a test runner's threads do, and a child inherits the
    // mask): the signals this command answers must arrive.
    var answered = sigset_t()
    sigemptyset(&answered)
    for signal in [SIGINT, SIGTERM, SIGUSR1] { sigaddset(&answered, signal) }
    sigprocmask(SIG_UNBLOCK, &answered, nil)
}

/// Calls `wake` on a dispatch thread whenever the signal handler writes to ``signalPipe``; nil
/// when there is no pipe. Cancel the source to stop.
func watchSignalPipe(_ wake: @escaping @Sendable () -> Void) -> DispatchSourceRead? {
    let descriptor = signalPipe.read
    guard descriptor >= 0 else { return nil }
    let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
    source.setEventHandler {
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = read(descriptor, &bytes, bytes.count)
        wake()
    }
    source.resume()
    return source
}
