import MoviePlatform

/// How the upload queue names objects, splits files and shares the network.
public struct UploadSettings: Sendable, Hashable {
    /// How each object's key is made: `{prefix}` (the destination's), `{device}`
    /// (``deviceName``), `{date}` (the file's modification day, `YYYY-MM-DD` in UTC), `{kind}`
    /// (`clips`, `photos` or `recordings`) and `{name}` (the file's name). Default
    /// `{prefix}{device}/{date}/{name}`.
    public var keyTemplate = "{prefix}{device}/{date}/{name}"
    /// What `{device}` stands for; the host's name by default.
    public var deviceName: String
    /// Files up to this size go in one PUT; larger ones in a multipart upload. 8 MiB by default.
    public var singleRequestLimit: Int64 = 8 << 20
    /// The size of each part of a multipart upload (S3 takes 5 MiB to 5 GiB). 8 MiB by default.
    public var partSize: Int64 = 8 << 20
    /// Bytes per second the queue may send in all; nil for no cap.
    public var maximumRate: Int64?
    /// Requests at once. 2 by default.
    public var maximumConcurrentRequests = 2
    /// Seconds without a byte moving after which a request is given up and retried.
    public var stallTimeout: Duration = .seconds(30)
    /// The first retry's delay; each later one doubles, up to ``maximumRetryDelay``, each with
    /// random jitter (between half and all of it).
    public var retryDelay: Duration = .seconds(1)
    /// The longest delay between retries.
    public var maximumRetryDelay: Duration = .seconds(60)
    /// Failed attempts in a row after which a file waits until another upload succeeds (or a
    /// later `movrec upload`); 8 by default.
    public var maximumAttempts = 8
    /// A Boolean value that indicates whether each file is deleted once its object is stored.
    public var deletesAfterUpload = false

    /// The default settings, `{device}` the host's name.
    public init() {
        deviceName = HostName.current
    }
}
