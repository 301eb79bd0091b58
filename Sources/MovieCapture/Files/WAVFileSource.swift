import MovieContainer
import MoviePlatform
/// An audio source that reads the samples of a PCM WAV file.
///
/// The `data` chunk is read with `pread` in buffers of about 20 ms (`sampleRate / 50` frames;
/// the last may be shorter), in the file's own sample format, and delivered as fast as the
/// handler returns. Buffer *n* starts at frame `k` and is stamped `start + k × 10⁹ / sampleRate`
/// nanoseconds, computed from the frame count in integers. At the end of the data the source
/// delivers ``AudioSourceEvent/ended``; a read error, or a file that became shorter than its
/// header says, ends the run with ``AudioSourceEvent/interrupted(_:)``.
///
/// `start(handler:)` while reading throws ``SourceError/Code/alreadyRunning``; after ``stop()``,
/// or after the end, it starts over from the first frame with a new start time.
public final class WAVFileSource: AudioSource {
    /// The file's path.
    public let path: String
    /// The file's path, as the source's name.
    public var name: String { path }
    /// The file's sample format, from its `fmt ` chunk.
    public var format: PCMFormat { wav.format }
    /// Always `false`: buffers are delivered as fast as the handler returns.
    public let isLive = false
    /// The number of frames in each buffer.
    public let bufferFrames: Int
    /// Where the samples are in the file.
    public let wav: WAVFile

    private let thread: SourceThread

    /// Opens a WAV file and reads its header.
    /// - Throws: `FileError` when the file cannot be read; ``WAVFile/FormatError`` when it is
    ///   not a PCM WAV file.
    public init(path: String) throws {
        wav = try WAVFile(path: path)
        self.path = path
        bufferFrames = max(1, Int(wav.format.sampleRate) / 50)
        thread = SourceThread(sourceName: path, threadName: "wav reader")
    }

    /// Opens the file again and starts reading on a dedicated thread.
    /// - Throws: `FileError` when the file cannot be opened; ``SourceError`` with
    ///   ``SourceError/Code/alreadyRunning`` while reading.
    public func start(handler: @escaping @Sendable (AudioSourceEvent) -> Void) throws {
        let file = try RandomAccessFile(path: path, mode: .read)
        let wav = self.wav, path = self.path, bufferFrames = UInt64(self.bufferFrames)
        let bytesPerFrame = UInt64(wav.format.bytesPerFrame)
        do {
            try thread.start { run in
                defer { try? file.close() }
                let timeline = CaptureTimeline(start: MonotonicClock.now(), count: UInt64(wav.format.sampleRate))
                var k: UInt64 = 0
                while !run.isStopRequested {
                    guard k < wav.frameCount else { return run.finish { handler(.ended) } }
                    let count = min(bufferFrames, wav.frameCount - k)
                    let offset = wav.offset(ofFrame: k)
                    let bytes: [UInt8]
                    do {
                        bytes = try file.read(at: offset, count: Int(count * bytesPerFrame))
                    } catch {
                        return run.finish { handler(.interrupted(InterruptionReason(source: path, message: "frame \(k) could not be read: \(error)"))) }
                    }
                    guard bytes.count == Int(count * bytesPerFrame) else {
                        return run.finish {
                            handler(.interrupted(InterruptionReason(
                                source: path, message: "the file ends at byte \(offset + UInt64(bytes.count)), before the end of its data chunk at byte \(wav.dataOffset + wav.dataSize); was it cut short while being read?")))
                        }
                    }
                    handler(.buffer(AudioBuffer(bytes: bytes, frameCount: Int(count), timestamp: timeline.time(of: k))))
                    k += count
                }
            }
        } catch {
            try? file.close()
            throw error
        }
    }

    /// Stops reading and waits for the reading thread to end.
    public func stop() { thread.stop() }
}
