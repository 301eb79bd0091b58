/// A four-character code that names an atom type, a codec or a handler.
///
/// QuickTime stores each as 32 bits, big-endian; a string literal of four ASCII characters
/// creates one: `let type: FourCC = "moov"`.
public struct FourCC: Hashable, Sendable, RawRepresentable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The code as a big-endian 32-bit value.
    public var rawValue: UInt32

    /// Creates a code from its big-endian 32-bit value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates a code from exactly four ASCII characters.
    public init(stringLiteral value: StaticString) {
        precondition(value.utf8CodeUnitCount == 4, "a FourCC needs four ASCII characters")
        let p = value.utf8Start
        rawValue = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
    }

    /// Creates a code from a string of exactly four ASCII characters, or returns `nil`.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        rawValue = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
    }

    /// The four bytes in file order.
    public var bytes: [UInt8] {
        [UInt8(rawValue >> 24), UInt8(rawValue >> 16 & 0xFF), UInt8(rawValue >> 8 & 0xFF), UInt8(rawValue & 0xFF)]
    }

    /// The code as text; bytes outside printable ASCII show as `\xNN`.
    public var description: String {
        var text = ""
        for byte in bytes {
            if byte >= 0x20 && byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return text
    }
}
