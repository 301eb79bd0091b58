import MovieContainer
import MoviePlatform

/// The stream header of a YUV4MPEG2 (`.y4m`) file: the picture size and frame rate, for 8-bit
/// progressive 4:2:0 video.
///
/// The header is one line: `YUV4MPEG2`, then parameters separated by spaces, each a letter and
/// a value — `W` width, `H` height, `F` rate as `num:den`, `I` interlacing, `A` pixel aspect
/// ratio, `C` colour space, `X` application data. Every frame is a `FRAME` line, which may
/// carry parameters of its own, followed by the Y, U and V planes.
package struct Y4MHeader: Hashable, Sendable {
    package var width: Int
    package var height: Int
    package var frameRate: FrameRate
    /// The length of the header line, newline included: the offset of the first `FRAME`.
    package var length: Int

    /// The longest header line this reader accepts.
    package static let maximumLength = 4096

    /// The chroma tags that mean 8-bit 4:2:0, which differ only in chroma siting.
    package static let supportedChroma: Set<String> = ["420jpeg", "420paldv", "420mpeg2", "420"]

    /// Parses the header at the start of `bytes`.
    /// - Parameter path: the file's path, for errors.
    /// - Throws: ``SourceError`` with ``SourceError/Code/malformedFile`` or
    ///   ``SourceError/Code/unsupportedFormat``.
    package init(parsing bytes: [UInt8], path: String) throws(SourceError) {
        func malformed(_ message: String) -> SourceError {
            SourceError(.malformedFile, source: path, step: "reading the YUV4MPEG2 header", message)
        }
        func unsupported(_ message: String) -> SourceError {
            SourceError(.unsupportedFormat, source: path, step: "reading the YUV4MPEG2 header", message)
        }
        let magic = Array("YUV4MPEG2".utf8)
        guard bytes.count > magic.count, bytes.starts(with: magic), bytes[magic.count] == 0x20 || bytes[magic.count] == 0x0A else {
            throw malformed("it does not start with \"YUV4MPEG2 \"; is it a .y4m file?")
        }
        guard let end = bytes.prefix(Self.maximumLength).firstIndex(of: 0x0A) else {
            throw malformed("its header line has no end within \(Self.maximumLength) bytes")
        }
        length = end + 1
        var width: Int?, height: Int?, rate: FrameRate?
        for token in bytes[magic.count..<end].split(separator: 0x20) {
            let value = String(decoding: token.dropFirst(), as: UTF8.self)
            switch token.first {
            case UInt8(ascii: "W"), UInt8(ascii: "H"):
                guard let size = Int(value), size > 0, size <= 16_384 else {
                    throw malformed("its \(token.first == UInt8(ascii: "W") ? "width" : "height") \"\(value)\" is not a number from 1 to 16384")
                }
                if token.first == UInt8(ascii: "W") { width = size } else { height = size }
            case UInt8(ascii: "F"):
                let parts = value.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let frames = UInt32(parts[0]), let seconds = UInt32(parts[1]), frames > 0, seconds > 0 else {
                    throw malformed("its frame rate \"F\(value)\" is not two positive numbers as F<frames>:<seconds>")
                }
                rate = FrameRate(frames: frames, seconds: seconds)
            case UInt8(ascii: "I"):
                switch value {
                case "p", "?": break
                case "t", "b":
                    throw unsupported("it is interlaced (\(value == "t" ? "top" : "bottom") field first); only progressive video is read — deinterlace it first, for example with ffmpeg -vf yadif")
                case "m":
                    throw unsupported("it mixes interlaced and progressive frames (Im); only progressive video is read")
                default:
                    throw malformed("its interlacing \"I\(value)\" is not one of Ip, It, Ib, Im or I?")
                }
            case UInt8(ascii: "C"):
                guard Self.supportedChroma.contains(value) else {
                    throw unsupported("its colour space C\(value) is not 8-bit 4:2:0 (C420, C420jpeg, C420paldv or C420mpeg2); convert it, for example with ffmpeg -pix_fmt yuv420p")
                }
            default:
                break  // A (aspect ratio), X (application data) and unknown tags do not change the pictures.
            }
        }
        guard let width, let height else {
            throw malformed("its header has no \(width == nil ? "width (W)" : "height (H)")")
        }
        guard let rate else { throw malformed("its header has no frame rate (F)") }
        self.width = width
        self.height = height
        frameRate = rate
    }
}
