/// What the queue remembers of one file, stored with it (``UploadStateStore``): begun (with the
/// multipart upload's ID once there is one) or done, for one destination and key, and for the
/// file as it was then (its size and modification time): a file replaced since, even under the
/// same name or inode, has no record.
struct UploadRecord: Sendable, Hashable {
    enum Stage: Sendable, Hashable {
        /// Requests were sent; `uploadID` is the multipart upload's, nil for a single PUT.
        case begun(uploadID: String?)
        /// The object is stored with this ETag.
        case done(etag: String)
    }

    var destination: String
    var key: String
    var stage: Stage
    /// The file's size and modification time (nanoseconds since 1970) when it was recorded.
    var size: UInt64
    var modified: Int64

    /// One line: `v2`, the stage, the destination, the key, the upload ID or ETag, the size
    /// and the modification time, tab-separated.
    var encoded: String {
        let (stage, value): (String, String)
        switch self.stage {
        case .begun(let id): (stage, value) = ("begun", id ?? "-")
        case .done(let etag): (stage, value) = ("done", etag)
        }
        return ["v2", stage, destination, key, value, String(size), String(modified)].joined(separator: "\t")
    }

    init(destination: String, key: String, stage: Stage, size: UInt64, modified: Int64) {
        self.destination = destination
        self.key = key
        self.stage = stage
        self.size = size
        self.modified = modified
    }

    /// A record from ``encoded``; nil for anything else (another version's, or damage).
    init?(encoded text: String) {
        let fields = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 7, fields[0] == "v2", let size = UInt64(fields[5]), let modified = Int64(fields[6]) else { return nil }
        destination = fields[2]
        key = fields[3]
        self.size = size
        self.modified = modified
        switch fields[1] {
        case "begun": stage = .begun(uploadID: fields[4] == "-" ? nil : fields[4])
        case "done": stage = .done(etag: fields[4])
        default: return nil
        }
    }

    /// A Boolean value that indicates whether the record is of this file as it is now, for this
    /// destination and key.
    func matches(destination: String, key: String, size: UInt64, modified: Int64) -> Bool {
        self.destination == destination && self.key == key && self.size == size && self.modified == modified
    }

    /// A Boolean value that indicates whether the object is stored.
    var isDone: Bool {
        if case .done = stage { return true }
        return false
    }
}
