import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

/// Encodes a WAV file's PCM to AAC on a thread of its own, ahead of a muxer that takes the
/// access units in order: the muxer's thread never runs the encoder.
///
/// The access units wait in a bounded queue (a few seconds of audio), so the encoder runs at
/// most that far ahead. ``cancel()`` stops it early, once the muxer has all it needs.
final class WAVEncodingThread: Sendable {
    /// The encoder's configuration and delay, for the track.
    let format: AACFormat
    private let packets = BoundedQueue<[UInt8]>(capacity: 256)
    private let failure = LockedValue<EncoderError?>(nil)
    private let thread: DedicatedThread
    private let joined = LockedValue(false)

    /// Opens the encoder and starts encoding the first `frames` frames of `wav`, whose bytes are
    /// `bytes` (the file, mapped).
    /// - Throws: ``EncoderError`` when the encoder cannot be opened.
    init(wav: WAVFile, bytes: ImmutableBytes, frames: UInt64, bitRate: Int) throws(EncoderError) {
        let encoder = try AACEncoder(input: wav.format, bitRate: bitRate)
        format = encoder.format
        let packets = self.packets, failure = self.failure
        thread = DedicatedThread(name: "movrec-aac") {
            defer {
                encoder.close()
                packets.close()
            }
            do {
                try Self.encode(wav: wav, bytes: bytes, frames: frames, with: encoder, into: packets)
            } catch let error as EncoderError {
                failure.withLock { $0 = error }
            } catch {}  // the queue was closed: cancelled
        }
    }

    /// Encodes in blocks of 4096 frames and drains the encoder; stops when the queue is closed.
    private static func encode(wav: WAVFile, bytes: ImmutableBytes, frames: UInt64, with encoder: AACEncoder,
                               into packets: BoundedQueue<[UInt8]>) throws {
        struct Cancelled: Error {}
        let deliver: (UnsafeRawBufferPointer) throws -> Void = { packet in
            guard packets.push(Array(packet)) else { throw Cancelled() }
        }
        try bytes.withUnsafeBytes { raw in
            var frame: UInt64 = 0
            while frame < frames {
                let count = min(4096, frames - frame)
                let range = Int(wav.offset(ofFrame: frame))..<Int(wav.offset(ofFrame: frame + count))
                try encoder.encode(UnsafeRawBufferPointer(rebasing: raw[range]), deliver: deliver)
                frame += count
            }
        }
        try encoder.flush(deliver: deliver)
    }

    /// The next access unit; nil once all are taken.
    /// - Throws: ``EncoderError`` when encoding failed.
    func next() throws(EncoderError) -> [UInt8]? {
        if let packet = packets.pop() { return packet }
        if let error = failure.withLock({ $0 }) { throw error }
        return nil
    }

    /// Stops the encoder and waits for its thread; later calls do nothing.
    func cancel() {
        packets.close()
        let first = joined.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        thread.join()
    }
}
