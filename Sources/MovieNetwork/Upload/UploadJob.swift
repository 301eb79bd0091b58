/// A queued file: its key, its place in the order and its attempts so far.
struct UploadJob: Sendable {
    var path: String
    var key: String
    /// Event clips 0, photos 1, recordings 2: lower goes first.
    var rank: Int
    var bytes: Int64
    /// When it was queued, for oldest first within a rank.
    var order: UInt64
    var attempts = 0
    /// Not before this monotonic time (a back-off).
    var notBefore: UInt64 = 0
    var isActive = false
    /// Failed too often: waits until another upload succeeds.
    var isWaiting = false
}

/// The queue's state, guarded by its lock.
struct QueueState {
    var jobs: [String: UploadJob] = [:]
    var sequence: UInt64 = 0
    var stopped = false
    var uploadedFiles = 0
    var uploadedBytes: Int64 = 0
    var droppedFiles = 0
    /// Bytes stored recently, with their times, for the rate.
    var recent: [(time: UInt64, bytes: Int64)] = []
    var lastError: String?
    var finishWaiters: [CheckedContinuation<UploadQueue.Status, Never>] = []
    /// Unfinished uploads, and journal lines, of files retention deleted: for a worker to clear.
    var abandoned: [(key: String, uploadID: String)] = []
    var forgotten: [String] = []

    /// Nothing is left to send now: every job stored or waiting, or the queue stopped.
    var isSettled: Bool { stopped || jobs.values.allSatisfy(\.isWaiting) }

    /// The first job by rank, then age, that is neither being sent, waiting nor backing off,
    /// and whose key no job being sent has (two files of one key would undo each other's upload).
    func readyJob(now: UInt64) -> String? {
        let busy = Set(jobs.values.filter(\.isActive).map(\.key))
        return jobs.values.filter { !$0.isActive && !$0.isWaiting && $0.notBefore <= now && !busy.contains($0.key) }
            .min { ($0.rank, $0.order) < ($1.rank, $1.order) }?.path
    }

    /// When the earliest back-off ends, if any job is backing off.
    func nextDeadline() -> UInt64? {
        jobs.values.filter { !$0.isActive && !$0.isWaiting }.map(\.notBefore).min()
    }

    mutating func recordProgress(_ bytes: Int64, at time: UInt64) {
        recent.append((time, bytes))
        recent.removeAll { time - $0.time > 10_000_000_000 }
    }

    /// A file is stored: the count goes up, and files that waited after too many failures
    /// are tried again (the network is back).
    mutating func recordSuccess(_ bytes: Int64) {
        uploadedFiles += 1
        uploadedBytes += bytes
        lastError = nil
        for path in jobs.keys where jobs[path]?.isWaiting == true {
            jobs[path]?.isWaiting = false
            jobs[path]?.attempts = 0
        }
    }

    /// Counts a failed attempt and sets its back-off: doubling from the first delay up to the
    /// longest, each between half and all of it; nil when the file now waits.
    mutating func recordFailure(of path: String, _ error: UploadError, settings: UploadSettings, now: UInt64) -> Duration? {
        lastError = error.message
        guard var job = jobs[path] else { return nil }
        job.attempts += 1
        defer { jobs[path] = job }
        // Refused credentials stay refused: retrying would only repeat the answer.
        if job.attempts >= settings.maximumAttempts || error.code == .invalidCredentials {
            job.isWaiting = true
            return nil
        }
        let first = Double(settings.retryDelay.components.seconds) + Double(settings.retryDelay.components.attoseconds) / 1e18
        let longest = Double(settings.maximumRetryDelay.components.seconds)
        let delay = min(longest, first * Double(1 << min(job.attempts - 1, 20))) * Double.random(in: 0.5...1.0)
        job.notBefore = now + UInt64(delay * 1e9)
        return .milliseconds(Int64(delay * 1000))
    }

    func status(now: UInt64) -> UploadQueue.Status {
        var status = UploadQueue.Status()
        status.pendingFiles = jobs.values.filter { !$0.isWaiting }.count
        status.pendingBytes = jobs.values.filter { !$0.isWaiting }.reduce(0) { $0 + $1.bytes }
        status.waitingFiles = jobs.values.filter(\.isWaiting).count
        status.uploadedFiles = uploadedFiles
        status.uploadedBytes = uploadedBytes
        status.droppedFiles = droppedFiles
        let window = recent.filter { now - $0.time <= 10_000_000_000 }
        status.bytesPerSecond = window.reduce(0) { $0 + $1.bytes } / 10
        status.lastError = lastError
        return status
    }
}

/// The queue's state in a box its ``ConditionLock`` guards: every access is under that lock.
final class GuardedQueueState: @unchecked Sendable {
    var value = QueueState()
}
