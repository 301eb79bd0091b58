import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// The user name and password every RTSP client must give (Digest authentication, RFC 2617),
/// as NVRs take them: `rtsp://user:password@host:8554/main`.
///
/// Read them from a file only its owner may read, or from the environment; never put them on a
/// command line, where every user's `ps` shows them. The password is never printed or logged:
/// ``description`` leaves it out.
public struct RTSPCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The user name: letters, digits and `-._~`, at most 64 characters.
    public let user: String
    /// The password: at least 8 characters, printable ASCII without spaces.
    public let password: String

    /// Checks and keeps a user name and password.
    /// - Throws: ``RTSPServerError`` (``RTSPServerError/Code/invalidCredentials``) for an empty
    ///   or unusual user name, or a password shorter than 8 characters or holding spaces or
    ///   characters other than printable ASCII.
    public init(user: String, password: String) throws(RTSPServerError) {
        guard !user.isEmpty, user.count <= 64, user.isUnreservedInURLs else {
            throw RTSPServerError(.invalidCredentials, "RTSPCredentials: the user name must be 1 to 64 letters, digits or '-._~'")
        }
        guard password.count >= 8, password.count <= 128, password.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }) else {
            throw RTSPServerError(.invalidCredentials, "RTSPCredentials: the password must be 8 to 128 printable ASCII characters without spaces")
        }
        self.user = user
        self.password = password
    }

    /// Reads `user:password` from the first line of `path`, a regular file of this user's that
    /// nobody else may read or write (`chmod 600`).
    /// - Throws: ``RTSPServerError`` (``RTSPServerError/Code/invalidCredentials``) naming the
    ///   file and what to do when it is missing, shared, or not one `user:password` line.
    public init(contentsOfFile path: String) throws(RTSPServerError) {
        let line: String?
        do { line = try SecretFile.firstLine(of: path) } catch {
            throw RTSPServerError(.invalidCredentials, "RTSPCredentials: \(error.description)")
        }
        guard let line else {
            throw RTSPServerError(.invalidCredentials, "RTSPCredentials: \(path) does not exist; write one line user:password into it and chmod 600 it")
        }
        try self.init(line: line, source: path)
    }

    /// Reads `user:password` from the environment variable `name`; nil when it is not set.
    /// - Throws: ``RTSPServerError`` when it is set but not one `user:password`.
    public init?(environmentVariable name: String) throws(RTSPServerError) {
        guard let raw = getenv(name) else { return nil }
        let value = String(cString: raw)
        try self.init(line: value, source: "the environment variable \(name)")
    }

    private init(line: String, source: String) throws(RTSPServerError) {
        guard let colon = line.firstIndex(of: ":") else {
            throw RTSPServerError(.invalidCredentials, "RTSPCredentials: \(source) must hold one line user:password")
        }
        do {
            try self.init(user: String(line[..<colon]), password: String(line[line.index(after: colon)...]))
        } catch {
            throw RTSPServerError(.invalidCredentials, "\(error.message) (in \(source))")
        }
    }

    /// The user name, without the password.
    public var debugDescription: String { description }

    /// The user name, without the password.
    public var description: String { "RTSPCredentials(user: \(user))" }
}
