import MovieContainer
import MovieEncoding

/// The last seconds of a recording kept, so an event clip can start before its trigger: the
/// video as encoded access units indexed by IDR, the audio as the PCM the recording placed
/// (about 1.9 MB for ten seconds of 48 kHz stereo), and the timed metadata, bounded by a
/// duration and a byte cap.
///
/// It keeps everything from the newest IDR at or before `newest − duration` on, so a clip that
/// reaches `duration` back starts on a keyframe; older video goes a whole group of pictures at
/// a time, and audio that ends before the oldest video kept goes with it. Past the byte cap,
/// whole groups go even when that leaves less than the duration (a clip then starts later than
/// asked). So memory stays below the cap plus one group of pictures. The writing thread alone
/// uses it.
struct EncodedPreRoll {
    /// PCM frames as the recording placed them (silence filled in), from `time` on the
    /// recording's audio timeline, in ticks of the sample rate. A clip encodes its own AAC from
    /// them: the recording's access units cannot be cut at any frame, nor joined across a
    /// segment's switch (each segment has its own encoder).
    struct AudioChunk {
        var bytes: [UInt8]
        var time: Int64
        var frameCount: Int
        var end: Int64 { time + Int64(frameCount) }
    }

    /// A timed metadata sample: its track (an index into the recording's metadata tracks), its
    /// time on the recording's timeline in video ticks, and its values.
    struct MetadataSample {
        var track: Int
        var time: Int64
        var items: [TimedMetadataItem]
    }

    /// How far back the pre-roll reaches, in video ticks.
    let durationTicks: Int64
    /// The most bytes kept.
    let byteLimit: Int
    /// Video ticks per second and audio frames per second, to compare their times.
    let videoTimescale: Int64
    let audioRate: Int64
    private var video = Ring<EncodedVideoSample>()
    private var audio = Ring<AudioChunk>()
    /// The metadata samples kept: those since the oldest picture, and the one before it of
    /// each track (the value in force there).
    private(set) var metadata: [MetadataSample] = []
    /// How many samples there may be before the next trim: twice as many as the last one
    /// kept, so a fast sensor's samples are trimmed in amortized constant time.
    private var metadataTrimCount = 64
    /// The indices (in the video ring's own count) of the IDRs kept, oldest first.
    private var keyframes: [Int] = []
    private(set) var byteCount = 0
    /// The newest presentation time, in video ticks.
    private(set) var newestTime: Int64?

    init(duration: Duration, byteLimit: Int, videoTimescale: UInt32, audioRate: UInt32) {
        let (seconds, attoseconds) = duration.components
        durationTicks = seconds * Int64(videoTimescale) + attoseconds / 1_000_000_000 * Int64(videoTimescale) / 1_000_000_000
        self.byteLimit = byteLimit
        self.videoTimescale = Int64(videoTimescale)
        self.audioRate = Int64(max(1, audioRate))
    }

    /// Adds an access unit; times on the recording's timeline.
    mutating func append(_ sample: EncodedVideoSample) {
        if sample.isKeyframe { keyframes.append(video.endIndex) }
        video.append(sample)
        byteCount += sample.data.count
        newestTime = max(newestTime ?? sample.presentationTime, sample.presentationTime)
        trim()
    }

    /// Adds PCM frames.
    mutating func append(_ chunk: AudioChunk) {
        audio.append(chunk)
        byteCount += chunk.bytes.count
        trim()
    }

    /// Adds a timed metadata sample.
    mutating func append(_ sample: MetadataSample) {
        metadata.append(sample)
        if metadata.count > metadataTrimCount { trimMetadata() }
    }

    /// Lets go of whole groups of pictures no longer needed, and of the audio before them.
    private mutating func trim() {
        guard let newest = newestTime else { return }
        while keyframes.count >= 2 {
            let next = video[keyframes[1]].presentationTime
            guard next <= newest - durationTicks || byteCount > byteLimit else { break }
            while video.startIndex < keyframes[1], let dropped = video.removeFirst() { byteCount -= dropped.data.count }
            keyframes.removeFirst()
        }
        guard let oldest = oldestAudioNeeded else { return }
        while let chunk = audio.first, chunk.end <= oldest, let dropped = audio.removeFirst() { byteCount -= dropped.bytes.count }
    }

    /// Where the oldest picture kept starts, in audio ticks: audio before it is not needed.
    private var oldestAudioNeeded: Int64? {
        video.first.map { $0.presentationTime * audioRate / videoTimescale }
    }

    /// Keeps the samples since the oldest picture and, of each track, the newest before it.
    private mutating func trimMetadata() {
        guard let oldest = video.first?.presentationTime else { return }
        var inForce: [Int: Int] = [:]
        for (index, sample) in metadata.enumerated() where sample.time <= oldest { inForce[sample.track] = index }
        let kept = Set(inForce.values)
        metadata = metadata.enumerated().filter { $0.element.time > oldest || kept.contains($0.offset) }.map(\.element)
        metadataTrimCount = max(64, 2 * metadata.count)
    }

    /// The video from the newest IDR at or before `time` (video ticks) on, in decode order;
    /// from the oldest IDR kept when none is that early.
    func video(from time: Int64) -> [EncodedVideoSample] {
        guard let start = keyframes.last(where: { video[$0].presentationTime <= time }) ?? keyframes.first else { return [] }
        return (start..<video.endIndex).map { video[$0] }
    }

    /// The audio kept, oldest first.
    var audioChunks: [AudioChunk] { (audio.startIndex..<audio.endIndex).map { audio[$0] } }
}

/// A first-in first-out buffer whose indices keep counting as the front is removed, so a kept
/// index names the same element for as long as it is in.
struct Ring<Element> {
    private var storage: [Element] = []
    private var head = 0
    /// How many elements were ever removed from the front.
    private var removed = 0

    var startIndex: Int { removed }
    var endIndex: Int { removed + storage.count - head }
    var first: Element? { head < storage.count ? storage[head] : nil }

    subscript(index: Int) -> Element { storage[head + index - removed] }

    mutating func append(_ element: Element) { storage.append(element) }

    /// Removes and returns the oldest element; frees the slots once most of them are empty.
    mutating func removeFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        removed += 1
        if head > 256, head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}
