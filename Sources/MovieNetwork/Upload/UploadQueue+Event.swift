extension UploadQueue {
    /// What the queue did, for a log or a status line; each names the file and its object's key.
    public enum Event: Sendable {
        /// A file was queued.
        case didQueue(path: String, key: String)
        /// An object is complete: `bytes` stored, `sentParts` sent now and `keptParts` the server
        /// held from before (a resumed upload); `alreadyStored` when nothing had to be sent.
        case didUpload(path: String, key: String, bytes: Int64, sentParts: Int, keptParts: Int, alreadyStored: Bool)
        /// An attempt failed; the file is tried again after `retryIn` (nil: it waits until
        /// another upload succeeds, or a later run).
        case didFail(path: String, key: String, error: UploadError, retryIn: Duration?)
        /// The file was removed, or changed while it was uploaded (the server refused a
        /// part's checksum, or its size or time changed): it is left out; a later
        /// ``UploadQueue/addFinishedRecordings(in:)`` sends it as it then is.
        case didDropFile(path: String, key: String, error: UploadError)
        /// The file was deleted once stored (``UploadSettings/deletesAfterUpload``).
        case didDeleteAfterUpload(path: String)
        /// Retention deleted the file before it was uploaded: the disk was down to `freeBytes`,
        /// within two segments of `MovieFileOutput.minFreeDiskSpaceLimit` (of full, without one).
        case didDeleteBeforeUpload(path: String, freeBytes: UInt64)
    }

    /// What the queue holds and has done, for a status line.
    public struct Status: Sendable, Hashable {
        /// Files waiting or being sent.
        public var pendingFiles = 0
        /// The bytes of the files waiting or being sent.
        public var pendingBytes: Int64 = 0
        /// Files that failed ``UploadSettings/maximumAttempts`` times and wait.
        public var waitingFiles = 0
        /// Files stored since the queue started.
        public var uploadedFiles = 0
        /// The bytes of the files stored since the queue started.
        public var uploadedBytes: Int64 = 0
        /// Files left out because they were removed or changed while they were uploaded.
        public var droppedFiles = 0
        /// Bytes per second stored over the last ten seconds.
        public var bytesPerSecond: Int64 = 0
        /// The last failure's message, if any failed since the last success.
        public var lastError: String?
    }
}
