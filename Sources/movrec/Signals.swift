import MovieContainer
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder
import Synchronization

/// The first SIGINT or SIGTERM received, 0 before: stored by the signal handler (a lock-free
/// atomic store is async-signal-safe) and polled by the recording loop.
let receivedSignal = Atomic<Int32>(0)

/// Installs handlers for SIGINT and SIGTERM: the first asks for a clean stop, a second one
/// leaves at once.
func installSignalHandlers() {
    _ = receivedSignal.load(ordering: .relaxed)  // initialise the global before a handler can touch it
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signal in
        if receivedSignal.exchange(signal, ordering: .relaxed) != 0 { _exit(128 + signal) }
    }
    sigemptyset(&action.sa_mask)
    sigaction(SIGINT, &action, nil)
    sigaction(SIGTERM, &action, nil)
    // Past a file size limit (ulimit -f), fail the write with EFBIG instead of dying, so the
    // movie can still be finalized.
    signal(SIGXFSZ, SIG_IGN)
}
