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

/// Sets how signals end the command. Past a file size limit (ulimit -f) a write fails with
/// EFBIG instead of killing the process, so a movie can still be finalized. With `cleanStop`
/// (`movrec record`), the first SIGINT or SIGTERM asks the recording loop for a clean stop and
/// a second one leaves at once; every other command keeps the default, so a signal always ends
/// it.
func installSignalHandlers(cleanStop: Bool) {
    signal(SIGXFSZ, SIG_IGN)
    guard cleanStop else { return }
    _ = receivedSignal.load(ordering: .relaxed)  // initialise the global before a handler can touch it
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signal in
        if receivedSignal.exchange(signal, ordering: .relaxed) != 0 { _exit(128 + signal) }
    }
    sigemptyset(&action.sa_mask)
    sigaction(SIGINT, &action, nil)
    sigaction(SIGTERM, &action, nil)
}
