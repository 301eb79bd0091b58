extension String {
    /// Whether every character is one a URL carries as it is (RFC 3986's unreserved: ASCII
    /// letters, digits and `-._~`): what access tokens and RTSP user names may hold.
    var isUnreservedInURLs: Bool {
        unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-._~".unicodeScalars.contains($0))
        }
    }
}
