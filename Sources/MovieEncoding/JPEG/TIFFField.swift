import MovieContainer
import MoviePlatform
import MovieCapture

/// One field of an image file directory (TIFF 6.0 §2, "IFD Entry"): a tag, a type, a count and
/// the value itself when it fits in 4 bytes, else the offset of the value.
package struct TIFFField: Hashable, Sendable {
    package enum Value: Hashable, Sendable {
        /// Text, written with its terminating NUL (type 2, ASCII).
        case ascii(String)
        /// Type 3, SHORT.
        case short(UInt16)
        /// Type 4, LONG.
        case long(UInt32)
        /// A numerator and denominator (type 5, RATIONAL).
        case rational(UInt32, UInt32)
        /// Bytes whose meaning the tag defines (type 7, UNDEFINED).
        case undefined([UInt8])
    }

    package var tag: UInt16
    package var value: Value

    package init(_ tag: UInt16, _ value: Value) {
        self.tag = tag
        self.value = value
    }

    /// The space the Exif IFD pointer adds to IFD0: one 12-byte entry, its value inline.
    package static let exifIFDPointerSize = 12

    package var type: UInt16 {
        switch value {
        case .ascii: 2
        case .short: 3
        case .long: 4
        case .rational: 5
        case .undefined: 7
        }
    }

    /// The number of values: characters with the NUL for text, bytes for undefined data.
    package var count: UInt32 {
        switch value {
        case .ascii: UInt32(valueBytes.count)
        case .undefined(let bytes): UInt32(bytes.count)
        case .short, .long, .rational: 1
        }
    }

    /// The value as stored, big-endian. NUL bytes inside text are left out so the text ends at
    /// its own terminator.
    package var valueBytes: [UInt8] {
        var writer = ByteWriter(capacity: 8)
        switch value {
        case .ascii(let text): writer.write(contentsOf: text.utf8.filter { $0 != 0 } + [0])
        case .short(let v): writer.write(v)
        case .long(let v): writer.write(v)
        case .rational(let numerator, let denominator):
            writer.write(numerator)
            writer.write(denominator)
        case .undefined(let bytes): writer.write(contentsOf: bytes)
        }
        return writer.bytes
    }
}
