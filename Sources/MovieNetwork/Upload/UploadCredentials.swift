import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// The access key uploads are signed with. Its secret is never printed: ``description`` shows
/// the key ID alone.
///
/// Take them from the environment (``fromEnvironment()``: `AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`) or from a credentials file in the AWS CLI's
/// format (``init(file:profile:)``), never from a command line.
public struct UploadCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The access key ID.
    public let accessKeyID: String
    /// The secret access key.
    public let secretAccessKey: String
    /// A temporary session's token (`x-amz-security-token`), or nil.
    public let sessionToken: String?

    /// Credentials given directly.
    /// - Throws: ``UploadError`` (`.invalidCredentials`) when the key ID or the secret is empty or holds a space or a colon.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) throws(UploadError) {
        for (name, value) in [("access key ID", accessKeyID), ("secret access key", secretAccessKey)] {
            guard !value.isEmpty, !value.contains(where: { $0.isWhitespace || $0 == ":" || $0.asciiValue.map { $0 < 0x20 } ?? false }) else {
                throw UploadError(.invalidCredentials, "upload credentials: the \(name) is empty or holds a space, a colon or a control character")
            }
        }
        if let sessionToken, sessionToken.contains(where: { $0.isNewline }) {
            throw UploadError(.invalidCredentials, "upload credentials: the session token holds a line break")
        }
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Credentials from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, or
    /// nil when the first two are not both set.
    public static func fromEnvironment() throws(UploadError) -> UploadCredentials? {
        guard let key = environment("AWS_ACCESS_KEY_ID"), let secret = environment("AWS_SECRET_ACCESS_KEY") else { return nil }
        return try UploadCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: environment("AWS_SESSION_TOKEN"))
    }

    /// Credentials from a file in the AWS CLI's format (`[default]`, then
    /// `aws_access_key_id = …`, `aws_secret_access_key = …`, optionally `aws_session_token = …`),
    /// which must be this user's own and private (mode 600).
    /// - Throws: ``UploadError`` (`.invalidCredentials`) naming the file and what is wrong.
    public init(file path: String, profile: String = "default") throws(UploadError) {
        let bytes: [UInt8]
        do {
            guard let contents = try SecretFile.contents(of: path) else {
                throw UploadError(.invalidCredentials, "upload credentials file \(path) does not exist; give the file that holds the access key")
            }
            bytes = contents
        } catch let problem as SecretFile.Problem {
            throw UploadError(.invalidCredentials, "upload credentials file: \(problem.description)")
        } catch {
            throw error as! UploadError
        }
        var section = "", values: [String: String] = [:]
        for raw in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: " \t")
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = line.dropFirst().dropLast().trimmingCharacters(in: " \t")
            } else if section == profile || section == "profile \(profile)", let equals = line.firstIndex(of: "=") {
                values[line[..<equals].trimmingCharacters(in: " \t").lowercased()] = line[line.index(after: equals)...].trimmingCharacters(in: " \t")
            }
        }
        guard let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
            throw UploadError(.invalidCredentials, "upload credentials file \(path): profile [\(profile)] has no aws_access_key_id and aws_secret_access_key")
        }
        try self.init(accessKeyID: key, secretAccessKey: secret, sessionToken: values["aws_session_token"])
    }

    /// The region from `AWS_REGION` (or `AWS_DEFAULT_REGION`), if set.
    public static var environmentRegion: String? { environment("AWS_REGION") ?? environment("AWS_DEFAULT_REGION") }

    /// The access key ID, never the secret.
    public var description: String { "access key \(accessKeyID)" + (sessionToken == nil ? "" : " with a session token") }

    private static func environment(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let value = String(cString: raw)
        return value.isEmpty ? nil : value
    }
}

extension StringProtocol {
    /// Without the given characters at either end.
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
