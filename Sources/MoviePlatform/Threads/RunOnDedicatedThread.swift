import MovieContainer
/// Runs blocking work on a dedicated thread and resumes the caller with its result, so the
/// cooperative pool never waits on device or file I/O.
package func runOnDedicatedThread<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DedicatedThread(name: name) {
            continuation.resume(with: Result { try body() })
        }.detach()
    }
}
