import MovieContainer
import MoviePlatform
/// A RIFF/WAVE file of PCM audio: its format and where its samples are.
public struct WAVFile: Sendable {
    /// The sample layout from the `fmt ` chunk.
    public var format: PCMFormat
    /// The file offset of the first byte of the `data` chunk's samples.
    public var dataOffset: UInt64
    /// The number of sample bytes (whole frames).
    public var dataSize: UInt64

    /// The number of frames.
    public var frameCount: UInt64 { dataSize / UInt64(format.bytesPerFrame) }

    /// Where PCM frame `frame` starts in the file.
    package func offset(ofFrame frame: UInt64) -> UInt64 { dataOffset + frame * UInt64(format.bytesPerFrame) }

    /// An error for a file that is not a PCM WAV file this library reads.
    public struct FormatError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The path of the file that was refused.
        public let path: String
        /// What about the file is not read, such as a format tag other than PCM.
        public let reason: String
        /// A textual representation of the error: the path, then the reason.
        public var description: String { "\(path): not a PCM WAV file this library reads: \(reason)" }

        package init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Reads the header of the WAV file at `path`.
    /// - Throws: `FileError` when it cannot be read, ``FormatError`` when it is not PCM WAV.
    public init(path: String) throws {
        let file = try RandomAccessFile(path: path, mode: .read)
        defer { try? file.close() }
        try self.init(source: file, path: path)
    }

    package init(source: any MovieByteSource, path: String) throws {
        func fail(_ reason: String) -> FormatError { FormatError(path: path, reason: reason) }
        let head = try source.read(at: 0, count: 12)
        guard head.count == 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WAVE".utf8) else {
            throw fail("it does not start with a RIFF/WAVE header")
        }
        var offset: UInt64 = 12
        var format: PCMFormat?
        while offset + 8 <= source.size {
            let header = try source.read(at: offset, count: 8)
            let id = String(decoding: header[0..<4], as: UTF8.self)
            let size = UInt64(header[4]) | UInt64(header[5]) << 8 | UInt64(header[6]) << 16 | UInt64(header[7]) << 24
            let body = offset + 8
            if id == "fmt " {
                guard size >= 16, size <= 64 else { throw fail("its fmt chunk is \(size) bytes") }
                let f = try source.read(at: body, count: Int(size))
                guard f.count == Int(size) else { throw fail("its fmt chunk is truncated") }
                func u16(_ i: Int) -> UInt16 { UInt16(f[i]) | UInt16(f[i + 1]) << 8 }
                func u32(_ i: Int) -> UInt32 { UInt32(u16(i)) | UInt32(u16(i + 2)) << 16 }
                var tag = u16(0)
                if tag == 0xFFFE, size >= 26 { tag = u16(24) }  // WAVE_FORMAT_EXTENSIBLE: the sub-format's first two bytes
                guard tag == 1 || tag == 3 else { throw fail("format tag \(tag) is not PCM (1) or IEEE float (3)") }
                format = PCMFormat(sampleRate: u32(4), channelCount: u16(2), bitsPerChannel: u16(14), isFloat: tag == 3)
                do { try format!.validate() } catch { throw fail(error.message) }
            } else if id == "data" {
                guard let format else { throw fail("its data chunk comes before the fmt chunk") }
                let available = min(size, source.size - body)
                dataOffset = body
                dataSize = available - available % UInt64(format.bytesPerFrame)
                self.format = format
                return
            }
            offset = body + size + (size & 1)
        }
        throw fail("it has no data chunk")
    }
}
