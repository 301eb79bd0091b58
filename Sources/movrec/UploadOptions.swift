import MovieNetwork
import MovieRecorder

/// The upload options `movrec record` and `movrec upload` share: where to, how fast, and with
/// which credentials (from the environment or a file, never the command line).
struct UploadOptions {
    /// `--upload s3://BUCKET/PREFIX` (`movrec upload` takes it as its second argument).
    var url: String?
    private var endpoint, rate, ca, credentialsFile, region, partSize, timeout, keyTemplate: String?
    private var allowHTTP = false, deleteAfter = false

    /// No upload.
    init() {}

    /// Takes the upload options off `args` (`--upload` itself only when `takingURL`).
    init(taking args: inout Arguments, takingURL: Bool) throws {
        url = takingURL ? try args.option("--upload") : nil
        endpoint = try args.option("--upload-endpoint")
        rate = try args.option("--upload-rate")
        ca = try args.option("--upload-ca")
        credentialsFile = try args.option("--upload-credentials")
        region = try args.option("--upload-region")
        partSize = try args.option("--upload-part-size")
        timeout = try args.option("--upload-timeout")
        keyTemplate = try args.option("--upload-key")
        allowHTTP = args.flag("--upload-allow-http")
        deleteAfter = args.flag("--delete-after-upload")
        if takingURL && url == nil && (endpoint != nil || rate != nil || ca != nil || credentialsFile != nil || region != nil
            || partSize != nil || timeout != nil || keyTemplate != nil || allowHTTP || deleteAfter) {
            throw Arguments.UsageError(description: "the --upload-… options and --delete-after-upload need --upload s3://BUCKET/PREFIX")
        }
    }

    /// The queue's destination, credentials and settings; nil without a URL.
    /// - Throws: `Arguments.UsageError` naming a bad value, missing credentials or an unusable file.
    func resolved() throws -> UploadPlan? {
        guard let url else { return nil }
        do {
            var destination = try UploadDestination(url, endpoint: endpoint, region: region ?? UploadCredentials.environmentRegion ?? "us-east-1")
            destination.certificateAuthorities = ca
            destination.allowsPlainHTTP = allowHTTP
            let credentials = try credentialsFile.map { file throws(UploadError) in try UploadCredentials(file: file) } ?? UploadCredentials.fromEnvironment()
            guard let credentials else {
                throw Arguments.UsageError(description: "uploading needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give --upload-credentials FILE")
            }
            var settings = UploadSettings()
            if let rate { settings.maximumRate = Int64(try Self.positive(RecordOptions.byteCount(rate, "--upload-rate"), "--upload-rate")) }
            if let partSize {
                settings.partSize = Int64(try Self.positive(RecordOptions.byteCount(partSize, "--upload-part-size"), "--upload-part-size"))
                guard settings.partSize >= 5 << 20 else {
                    throw Arguments.UsageError(description: "--upload-part-size \(partSize) is below S3's smallest part, 5M")
                }
            }
            if let timeout {
                guard let seconds = Int(timeout), (1...3600).contains(seconds) else {
                    throw Arguments.UsageError(description: "--upload-timeout \(timeout) is not a whole number of seconds from 1 to 3600")
                }
                settings.stallTimeout = .seconds(seconds)
            }
            if let keyTemplate { settings.keyTemplate = keyTemplate }
            settings.deletesAfterUpload = deleteAfter
            return UploadPlan(destination: destination, credentials: credentials, settings: settings)
        } catch let error as UploadError {
            throw Arguments.UsageError(description: error.message)
        }
    }

    private static func positive(_ value: UInt64?, _ name: String) throws -> UInt64 {
        guard let value, value > 0 else { throw Arguments.UsageError(description: "\(name) must be above 0") }
        return value
    }

}

/// A queue's destination, credentials and settings, from the options.
struct UploadPlan {
    var destination: UploadDestination
    var credentials: UploadCredentials
    var settings: UploadSettings

    /// Starts the queue.
    /// - Throws: `Arguments.UsageError` for a destination the queue refuses (plain HTTP, a bad
    ///   template); ``UploadError`` when libcurl or libcrypto is missing.
    func start() throws -> UploadQueue {
        do {
            return try UploadQueue(destination: destination, credentials: credentials, settings: settings)
        } catch let error where error.code == .invalidDestination {
            throw Arguments.UsageError(description: error.message)
        }
    }
}

/// How `movrec` shows the queue: a line per upload and failure, and a status line.
enum UploadReport {
    /// Prints each event of the queue as a line on standard error until the queue ends.
    static func printEvents(of queue: UploadQueue) -> Task<Void, Never> {
        Task {
            for await event in queue.events {
                if let line = line(for: event) { standardError("movrec: upload: " + line) }
            }
        }
    }

    static func line(for event: UploadQueue.Event) -> String? {
        switch event {
        case .didQueue: return nil
        case .didUpload(_, let key, let bytes, let sent, let kept, let already):
            if already { return "\(key) was stored already" }
            return "stored \(key) (\(bytes) bytes" + (kept > 0 ? ", \(sent) parts sent and \(kept) kept from before)" : ")")
        case .didFail(_, _, let error, let retryIn):
            return error.message + (retryIn.map { " (again in \(seconds($0)) s)" } ?? " (waiting until another upload succeeds)")
        case .didDropFile(_, _, let error): return error.message
        case .didDeleteAfterUpload(let path): return "deleted \(path), stored"
        case .didDeleteBeforeUpload(let path, let free):
            return "retention deleted \(path) before it was uploaded: only \(free) bytes were free, at the disk's floor"
        }
    }

    /// `upload: 3 files (12.5 MB) to go, 7 stored (80.1 MB), 1.9 MB/s[, last error: …]`
    static func statusLine(_ status: UploadQueue.Status) -> String {
        var line = "upload: \(status.pendingFiles) files (\(megabytes(status.pendingBytes)) MB) to go, "
            + "\(status.uploadedFiles) stored (\(megabytes(status.uploadedBytes)) MB), \(megabytes(status.bytesPerSecond)) MB/s"
        if status.waitingFiles > 0 { line += ", \(status.waitingFiles) waiting after repeated failures" }
        if status.droppedFiles > 0 { line += ", \(status.droppedFiles) changed while sent" }
        if let error = status.lastError { line += ", last error: \(error)" }
        return line
    }

    /// Waits for the queue to finish, printing the status line every second (unless `quiet`);
    /// a SIGINT or SIGTERM stops it, leaving the rest for the next run.
    static func finish(_ queue: UploadQueue, quiet: Bool) async -> UploadQueue.Status {
        let signalled = receivedSignal.load(ordering: .relaxed)
        let signals = watchSignalPipe {
            guard receivedSignal.load(ordering: .relaxed) != signalled else { return }  // SIGUSR1
            standardError("movrec: upload: stopped; the rest is uploaded next time (movrec upload)")
            queue.stop()
        }
        // The status line's pace.
        let ticker = quiet ? nil : Task {
            while (try? await Task.sleep(for: .seconds(1))) != nil { standardError(statusLine(queue.status)) }
        }
        let status = await queue.finish()
        ticker?.cancel()
        signals?.cancel()
        queue.stop()
        if !quiet { standardError(statusLine(status)) }
        return status
    }

    private static func megabytes(_ bytes: Int64) -> String {
        let tenths = (bytes * 10 + 500_000) / 1_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func seconds(_ duration: Duration) -> String {
        let tenths = duration.components.seconds * 10 + duration.components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
