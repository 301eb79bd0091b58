/// What the queue remembers of one file, stored with it (``UploadStateStore``): begun (with the
/// multipart upload's ID once there is one) or done, for one destination and key.
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

    /// One line: `v1`, the stage, the destination, the key and the upload ID or ETag, tab-separated.
    var encoded: String {
        switch stage {
        case .begun(let id): return ["v1", "begun", destination, key, id ?? "-"].joined(separator: "\t")
        case .done(let etag): return ["v1", "done", destination, key, etag].joined(separator: "\t")
        }
    }

    init(destination: String, key: String, stage: Stage) {
        self.destination = destination
        self.key = key
        self.stage = stage
    }

    /// A record from ``encoded``; nil for anything else (a later version's, or damage).
    init?(encoded text: String) {
        let fields = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 5, fields[0] == "v1" else { return nil }
        destination = fields[2]
        key = fields[3]
        switch fields[1] {
        case "begun": stage = .begun(uploadID: fields[4] == "-" ? nil : fields[4])
        case "done": stage = .done(etag: fields[4])
        default: return nil
        }
    }
}
