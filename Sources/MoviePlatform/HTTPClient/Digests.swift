#if canImport(Glibc)
import Glibc
#endif
import CCrypto

/// The MD5 and SHA-256 of some bytes, through libcrypto: S3's Content-MD5 and ETag, and the
/// SigV4 payload hash.
package struct Digests: Sendable, Hashable {
    package var md5: [UInt8]
    package var sha256: [UInt8]

    /// Why the digests could not be made.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The digests of `length` bytes of the open file from `offset`.
    package init(descriptor: Int32, offset: Int64, length: Int64) throws(Failure) {
        try self.init { CCrypto_digests(descriptor, offset, nil, length, $0, $1) }
    }

    /// The digests of `bytes`.
    package init(_ bytes: [UInt8]) throws(Failure) {
        try self.init { md5, sha in bytes.withUnsafeBytes { CCrypto_digests(-1, 0, $0.baseAddress, Int64($0.count), md5, sha) } }
    }

    private init(_ digest: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Int32) throws(Failure) {
        if let failure = CCrypto_load() { throw Failure(description: String(cString: failure)) }
        var md5 = [UInt8](repeating: 0, count: 16), sha = [UInt8](repeating: 0, count: 32)
        let result = md5.withUnsafeMutableBufferPointer { m in sha.withUnsafeMutableBufferPointer { digest(m.baseAddress!, $0.baseAddress!) } }
        switch result {
        case 0: (self.md5, sha256) = (md5, sha)
        case -1: throw Failure(description: "the file ended before the bytes to digest, or could not be read (\(Errno(errno)))")
        default: throw Failure(description: "libcrypto could not make the digest")
        }
    }

    /// Lower-case hexadecimal.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// Base64, as Content-MD5 and x-amz-checksum headers carry digests.
    package static func base64(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? table[Int(value >> (18 - 6 * UInt32(position)) & 63)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
