import MovieRecorder
import MoviePlatform

/// A queue that puts every finished recording into S3-compatible object storage, and never
/// loses one on the way: like an output beside the session, it takes the files a
/// `MovieFileOutput` finishes (set it as the output's `fileObserver`), photos and whole
/// directories, and uploads
/// them on threads of its own: event clips first, then photos, then the oldest recordings.
///
/// Each file's progress is stored with it (an extended attribute, or a hidden journal), so a queue started after a
/// kill, a power cut or a reboot resumes where the last one stopped: parts the server holds are
/// not sent again, no object is half-written and no unfinished upload is left behind. A failed
/// attempt is retried with exponential back-off and jitter; the recording never waits on the
/// network, and retention does not delete a file before it is stored unless the disk's floor
/// forces it. Its worker threads run until ``stop()``: call it when the queue is done with
/// (after ``finish()``, or at once to leave the rest for the next queue). See
/// <doc:UploadingRecordings>.
public final class UploadQueue: RecordingFileObserver, Sendable {
    /// Where files go.
    public let destination: UploadDestination
    /// How keys are made, files split and the network shared.
    public let settings: UploadSettings
    /// What the queue does, newest kept when nobody reads (up to 256).
    public let events: AsyncStream<Event>

    private let eventContinuation: AsyncStream<Event>.Continuation
    private let client: S3Client
    private let store = UploadStateStore()
    private let cancel = CancelFlag()
    private let lock = ConditionLock()
    private let state = GuardedQueueState()
    private let workers = LockedValue<[DedicatedThread]>([])

    /// Creates a queue and starts its workers.
    /// - Throws: ``UploadError``: `.libraryMissing` without libcurl or libcrypto,
    ///   `.invalidDestination` for plain HTTP to another host or settings out of range.
    public init(destination: UploadDestination, credentials: UploadCredentials, settings: UploadSettings = UploadSettings()) throws(UploadError) {
        if let missing = HTTPTransfer.loadLibrary() {
            throw UploadError(.libraryMissing, "upload queue: libcurl could not be opened (\(missing)); install libcurl4")
        }
        if case .failure(let failure) = Result(catching: { () throws(Digests.Failure) in try Digests([]) }) {
            throw UploadError(.libraryMissing, "upload queue: libcrypto could not be opened (\(failure)); install libssl3")
        }
        if let refusal = destination.plainHTTPRefusal { throw UploadError(.invalidDestination, refusal) }
        try Self.check(settings)
        self.destination = destination
        self.settings = settings
        client = S3Client(destination: destination, credentials: credentials, settings: settings, cancel: cancel)
        (events, eventContinuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
        let threads = (0..<settings.maximumConcurrentRequests).map { index in
            DedicatedThread(name: "movrec-upload\(index)") { [self] in work() }
        }
        workers.withLock { $0 = threads }
    }

    private static func check(_ settings: UploadSettings) throws(UploadError) {
        if let problem = ObjectKey.problem(in: settings.keyTemplate) { throw UploadError(.invalidDestination, "upload queue: \(problem)") }
        guard (5 << 20 ... 5 << 30).contains(settings.partSize) else {
            throw UploadError(.invalidDestination, "upload queue: part size \(settings.partSize) bytes is outside S3's 5 MiB to 5 GiB")
        }
        guard (1...(5 << 30)).contains(settings.singleRequestLimit) else {
            throw UploadError(.invalidDestination, "upload queue: the single-request limit \(settings.singleRequestLimit) bytes is outside 1 byte to 5 GiB")
        }
        guard (1...16).contains(settings.maximumConcurrentRequests), settings.maximumAttempts >= 1, (settings.maximumRate ?? 1) > 0 else {
            throw UploadError(.invalidDestination, "upload queue: concurrent requests must be 1 to 16, attempts at least 1 and the rate above 0")
        }
    }

    deinit { eventContinuation.finish() }

    // MARK: Adding files

    /// Queues a finished file (a later add of the same path is ignored while it is queued).
    public func add(_ file: FinishedRecordingFile) {
        add([file])
    }

    /// Queues files together, so the order among them is the queue's (event clips first), not
    /// the order they were added in.
    private func add(_ files: [FinishedRecordingFile]) {
        add(files.compactMap { file in status(of: file.path).map { (file, $0) } })
    }

    /// Queues files whose size and modification time were just read.
    private func add(_ files: [(file: FinishedRecordingFile, status: (size: UInt64, modified: Int64))]) {
        let keyed = files.compactMap { item in key(for: item.file, modified: item.status.modified).map { (item.file, $0, item.status.size) } }
        let added = lock.withLock { () -> [(FinishedRecordingFile, String, UInt64)] in
            guard !state.value.stopped else { return [] }
            let fresh = keyed.filter { state.value.jobs[$0.0.path] == nil }
            for (file, key, size) in fresh {
                state.value.sequence += 1
                state.value.jobs[file.path] = UploadJob(path: file.path, key: key, rank: Self.rank(file.kind), bytes: Int64(size),
                                                         order: state.value.sequence)
            }
            lock.broadcast()
            return fresh
        }
        for (file, key, _) in added { eventContinuation.yield(.didQueue(path: file.path, key: key)) }
    }

    /// Queues every finished recording in `directory` and the directories in it that is not
    /// stored at this destination yet: movies whose movie atom is written, event clips, photos.
    /// - Returns: how many files were queued.
    @discardableResult
    public func addFinishedRecordings(in directory: String) -> Int {
        let files = FinishedRecordings.find(in: directory).compactMap { file in
            status(of: file.path).flatMap { isStored(file.path, as: $0) ? nil : (file, $0) }
        }
        // Oldest first within each kind.
        add(files.sorted { $0.1.modified < $1.1.modified })
        return files.count
    }

    /// Queues the finished recordings in `directory` and the directories in it whose upload to
    /// this destination was begun and not finished (by a queue that was killed): what a
    /// recorder restarted after a power cut resumes. Files never begun are left to
    /// ``addFinishedRecordings(in:)``.
    /// - Returns: how many files were queued.
    @discardableResult
    public func resumeUnfinishedUploads(in directory: String) -> Int {
        // The record first: only files with one are read as movies.
        let files = FinishedRecordings.find(in: directory) { path in
            guard let record = store.record(for: path), !record.isDone else { return false }
            return record.destination == destination.identity
        }
        add(files)
        return files.count
    }

    /// A Boolean value that indicates whether the file, as it is `now`, is stored here.
    private func isStored(_ path: String, as now: (size: UInt64, modified: Int64)) -> Bool {
        guard let record = store.record(for: path), record.isDone else { return false }
        return record.destination == destination.identity && record.size == now.size && record.modified == now.modified
    }

    /// The file's object key; nil for a name no key or record can hold (a control character).
    private func key(for file: FinishedRecordingFile, modified: Int64) -> String? {
        let name = UploadStateStore.name(of: file.path)
        guard ObjectKey.isUsable(name) else {
            MovieNetworkLogging.warning("\(file.path) is not uploaded: its name holds a control character (a tab or a line break)")
            return nil
        }
        return ObjectKey.make(name: name, kind: file.kind, modified: modified / 1_000_000_000, destination: destination, settings: settings)
    }

    private func status(of path: String) -> (size: UInt64, modified: Int64)? {
        (try? RandomAccessFile(path: path, mode: .read))?.sizeAndModification
    }

    static func rank(_ kind: FinishedRecordingFile.Kind) -> Int {
        switch kind {
        case .eventClip: return 0
        case .photo: return 1
        case .segment, .movie: return 2
        }
    }

    // MARK: Status and ending

    /// What the queue holds and has done.
    public var status: Status { lock.withLock { state.value.status(now: SystemClock.monotonicNanoseconds()) } }

    /// Waits until every queued file is stored or has failed ``UploadSettings/maximumAttempts``
    /// times in a row (``Status/waitingFiles``), or the queue is stopped; returns the status then.
    public func finish() async -> Status {
        await withCheckedContinuation { continuation in
            let done: Status? = lock.withLock {
                if state.value.isSettled { return state.value.status(now: SystemClock.monotonicNanoseconds()) }
                state.value.finishWaiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Stops the queue: requests in flight are abandoned (their files resume next time from
    /// what the server holds) and nothing more is sent. Waits for the workers to end.
    public func stop() {
        let waiters = lock.withLock { () -> [CheckedContinuation<Status, Never>] in
            state.value.stopped = true
            lock.broadcast()
            defer { state.value.finishWaiters = [] }
            return state.value.finishWaiters
        }
        cancel.cancel()
        // Only the first call joins: a thread is joined once.
        for worker in workers.withLock({ workers in defer { workers = [] }; return workers }) { worker.join() }
        resume(waiters)
    }

    // MARK: RecordingFileObserver

    /// Queues a file the recording finished, if it plays.
    public func recordingDidFinishFile(_ file: FinishedRecordingFile) {
        guard file.isPlayable else { return }
        add(file)
    }

    /// True unless the file is queued and not stored yet.
    public func retentionMayDelete(_ path: String) -> Bool {
        lock.withLock { state.value.jobs[path] == nil }
    }

    /// Lets the file go: drops it from the queue, leaves its unfinished upload for a worker to
    /// abandon, and says so (``Event/didDeleteBeforeUpload(path:freeBytes:)``).
    public func retentionWillDeleteHeldFile(_ path: String, freeBytes: UInt64) {
        let record = store.record(for: path)
        let (removed, waiters) = lock.withLock { () -> (Bool, [CheckedContinuation<Status, Never>]) in
            guard state.value.jobs.removeValue(forKey: path) != nil else { return (false, []) }
            if case .begun(let id?) = record?.stage, let key = record?.key, record?.destination == destination.identity {
                state.value.abandoned.append((key, id))
            }
            state.value.forgotten.append(path)
            lock.broadcast()
            guard state.value.isSettled else { return (true, []) }
            defer { state.value.finishWaiters = [] }
            return (true, state.value.finishWaiters)
        }
        guard removed else { return }
        eventContinuation.yield(.didDeleteBeforeUpload(path: path, freeBytes: freeBytes))
        resume(waiters)
    }

    private func resume(_ waiters: [CheckedContinuation<Status, Never>]) {
        guard !waiters.isEmpty else { return }
        let now = status
        for waiter in waiters { waiter.resume(returning: now) }
    }

    // MARK: Workers

    private func work() {
        while let work = nextWork() {
            guard case .upload(let job) = work else {
                if case .abandon(let key, let id) = work { try? client.abortMultipartUpload(key, uploadID: id) }
                if case .forget(let path) = work { store.forget(path) }
                continue
            }
            let started = SystemClock.monotonicNanoseconds()
            let upload = FileUpload(path: job.path, key: job.key, client: client, store: store) { [self] bytes in
                lock.withLock { state.value.recordProgress(bytes, at: SystemClock.monotonicNanoseconds()) }
            }
            let result = Result { () throws(UploadError) in try upload.run() }
            finished(job, result, after: SystemClock.monotonicNanoseconds() - started)
        }
    }

    /// What a worker does next.
    private enum Work {
        case upload(UploadJob)
        /// An unfinished upload of a file retention deleted.
        case abandon(key: String, uploadID: String)
        /// The journal line of a file retention deleted.
        case forget(path: String)
    }

    /// The next thing to do, waiting for it (or for a back-off to end); nil once stopped.
    private func nextWork() -> Work? {
        lock.withLock {
            while !state.value.stopped {
                if let (key, id) = state.value.abandoned.popLast() { return .abandon(key: key, uploadID: id) }
                if let path = state.value.forgotten.popLast() { return .forget(path: path) }
                let now = SystemClock.monotonicNanoseconds()
                if let path = state.value.readyJob(now: now) {
                    state.value.jobs[path]?.isActive = true
                    return state.value.jobs[path].map { .upload($0) }
                }
                if let deadline = state.value.nextDeadline() { _ = lock.wait(until: deadline) } else { lock.wait() }
            }
            return nil
        }
    }

    private func finished(_ job: UploadJob, _ result: Result<FileUpload.Outcome, UploadError>, after nanoseconds: UInt64) {
        var events: [Event] = []
        var deleteAfter = false
        let waiters = lock.withLock { () -> [CheckedContinuation<Status, Never>] in
            defer { lock.broadcast() }
            state.value.jobs[job.path]?.isActive = false
            guard state.value.jobs[job.path] != nil else { return [] }  // deleted by retention meanwhile
            switch result {
            case .success(let outcome):
                state.value.jobs[job.path] = nil
                state.value.recordSuccess(outcome.bytes)
                events.append(.didUpload(path: job.path, key: job.key, bytes: outcome.bytes, sentParts: outcome.sent,
                                         keptParts: outcome.kept, alreadyStored: outcome.alreadyStored))
                deleteAfter = settings.deletesAfterUpload
            case .failure(let error) where error.code == .cancelled:
                break
            case .failure(let error) where error.code == .fileChanged:
                state.value.jobs[job.path] = nil
                state.value.droppedFiles += 1
                state.value.lastError = error.message
                events.append(.didDropFile(path: job.path, key: job.key, error: error))
            case .failure(let error):
                let delay = state.value.recordFailure(of: job.path, error, settings: settings, now: SystemClock.monotonicNanoseconds())
                events.append(.didFail(path: job.path, key: job.key, error: error, retryIn: delay))
            }
            guard state.value.isSettled else { return [] }
            defer { state.value.finishWaiters = [] }
            return state.value.finishWaiters
        }
        if deleteAfter {
            do {
                try RandomAccessFile.remove(job.path)
                store.forget(job.path)
                events.append(.didDeleteAfterUpload(path: job.path))
            } catch {
                MovieNetworkLogging.warning("could not delete \(job.path) after its upload: \(error)")
            }
        }
        for event in events { eventContinuation.yield(event) }
        resume(waiters)
    }
}
