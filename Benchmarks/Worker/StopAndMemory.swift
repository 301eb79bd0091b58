import MovieRecorder

/// Case c: long synthetic recordings through the real writer; filled in by the stop-and-memory work.
func stopAndMemory(_ arguments: [String]) throws {
    fail("stop-memory: not written yet")
}
