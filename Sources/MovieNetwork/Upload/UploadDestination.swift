/// Where recordings go: a bucket of S3-compatible object storage (AWS S3, MinIO, Ceph RGW,
/// Garage, R2, B2), a prefix for their keys, and how to reach it.
///
/// Without an ``endpoint`` the bucket is AWS's, reached over HTTPS at
/// `BUCKET.s3.REGION.amazonaws.com` (virtual-host style). With one (`http://127.0.0.1:9000`,
/// `https://minio.example.org`) the bucket is named in the path (path style), as MinIO and Ceph
/// expect. Plain HTTP is refused unless the endpoint is on loopback or ``allowsPlainHTTP`` is
/// set; certificates are verified against the system's authorities or
/// ``certificateAuthorities``.
public struct UploadDestination: Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name.
    public let bucket: String
    /// What every key begins with (`cameras/front/`), empty for none; ends with `/` unless empty.
    public let prefix: String
    /// The server's base URL, or nil for AWS's own hosts.
    public let endpoint: String?
    /// The region requests are signed for (`us-east-1` by default).
    public var region: String
    /// A PEM file of the certificate authorities to trust instead of the system's.
    public var certificateAuthorities: String?
    /// A Boolean value that indicates whether plain HTTP may be used to a host not on loopback.
    public var allowsPlainHTTP = false

    /// A destination from an `s3://bucket/prefix` URL.
    /// - Throws: ``UploadError`` (`.invalidDestination`) naming what is wrong.
    public init(_ url: String, endpoint: String? = nil, region: String = "us-east-1") throws(UploadError) {
        guard url.hasPrefix("s3://") else {
            throw UploadError(.invalidDestination, "upload destination \(url): give it as s3://bucket/prefix")
        }
        let rest = url.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        guard Self.isValidBucket(bucket) else {
            throw UploadError(.invalidDestination, "upload destination \(url): '\(bucket)' is not a bucket name (3–63 lower-case letters, digits, dots and hyphens)")
        }
        var prefix = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
        if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
        let parts = prefix.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        guard !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
              !prefix.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw UploadError(.invalidDestination, "upload destination \(url): the prefix has an empty, '.' or '..' part, or a control character")
        }
        if let endpoint {
            guard let parsed = Endpoint(endpoint) else {
                throw UploadError(.invalidDestination, "upload endpoint \(endpoint): give it as http(s)://host[:port]")
            }
            self.endpoint = parsed.base
        } else {
            self.endpoint = nil
        }
        guard !region.isEmpty, region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw UploadError(.invalidDestination, "upload region '\(region)': give it as letters, digits and hyphens (us-east-1)")
        }
        self.bucket = bucket
        self.prefix = prefix
        self.region = region
    }

    /// `s3://bucket/prefix`, and the endpoint when there is one.
    public var description: String {
        "s3://\(bucket)/\(prefix)" + (endpoint.map { " at \($0)" } ?? "")
    }

    /// The object's URL for `key` (its characters percent-encoded, slashes kept).
    func url(forKey key: String, query: String = "") -> String {
        let path = key.split(separator: "/", omittingEmptySubsequences: false).map { Self.encoded(String($0)) }.joined(separator: "/")
        let tail = query.isEmpty ? "" : "?" + query
        if let base = pathStyleBase { return "\(base)/\(bucket)/\(path)\(tail)" }
        return "https://\(bucket).s3.\(region).amazonaws.com/\(path)\(tail)"
    }

    /// The bucket's own URL, for requests on it (listing uploads).
    func bucketURL(query: String) -> String {
        if let base = pathStyleBase { return "\(base)/\(bucket)?\(query)" }
        return "https://\(bucket).s3.\(region).amazonaws.com/?\(query)"
    }

    /// Where the bucket is named in the path: the endpoint's; AWS's regional host for a bucket
    /// whose dots would not match its wildcard certificate as a host name; nil for virtual-host style.
    private var pathStyleBase: String? {
        if let endpoint { return endpoint }
        return bucket.contains(".") ? "https://s3.\(region).amazonaws.com" : nil
    }

    /// What ties stored state to this destination: a file uploaded here is not uploaded to another.
    var identity: String { "\(endpoint ?? "aws:\(region)")/\(bucket)" }

    /// Nil when requests may go as they are, else why the destination refuses plain HTTP.
    var plainHTTPRefusal: String? {
        guard let endpoint, let parsed = Endpoint(endpoint), !parsed.isSecure, !parsed.isLoopback, !allowsPlainHTTP else { return nil }
        return "upload endpoint \(endpoint) is plain HTTP to another host: recordings and signatures would cross the network unencrypted; use https, or allow plain HTTP explicitly (--upload-allow-http)"
    }

    /// Percent-encodes all but RFC 3986's unreserved characters, as SigV4 canonicalizes.
    static func encoded(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isValidBucket(_ name: String) -> Bool {
        (3...63).contains(name.count) && name.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "." || $0 == "-" }
            && name.first != "." && name.first != "-" && name.last != "." && name.last != "-"
    }
}

/// An endpoint URL taken apart: its scheme and host, for the checks above.
struct Endpoint {
    let base: String
    let isSecure: Bool
    let host: String

    init?(_ text: String) {
        let lower = text.lowercased()
        let secure = lower.hasPrefix("https://")
        guard secure || lower.hasPrefix("http://") else { return nil }
        let authority = text.dropFirst(secure ? 8 : 7).prefix { $0 != "/" }
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains(where: { $0 == " " || $0 == "?" || $0 == "#" }) else { return nil }
        let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }.dropFirst()) : String(authority.prefix { $0 != ":" })
        guard !host.isEmpty else { return nil }
        base = (secure ? "https://" : "http://") + authority
        isSecure = secure
        self.host = host.lowercased()
    }

    /// `localhost`, `::1` or an IPv4 address 127.x.x.x (not a name that begins with "127.").
    var isLoopback: Bool {
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let isLoopbackIPv4 = octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
        return host == "localhost" || host == "::1" || isLoopbackIPv4
    }
}
