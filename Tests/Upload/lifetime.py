"""How the upload test scripts end: SIGTERM, SIGINT, or their standard input closing (the
parent that started them with a pipe went away), so none outlives the test that started it."""
import signal
import sys
import threading


def wait_until_told_to_stop(watch_stdin=True):
    """Blocks until SIGTERM or SIGINT, or (with watch_stdin) end of standard input."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if watch_stdin:
        def watch():
            while sys.stdin.buffer.read1(65536):
                pass
            stop.set()
        threading.Thread(target=watch, daemon=True).start()
    # A timeout keeps the main thread where Python runs signal handlers.
    while not stop.wait(0.5):
        pass
