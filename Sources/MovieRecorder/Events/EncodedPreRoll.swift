import MovieEncoding

/// The last seconds of a recording kept in encoded form, so an event clip can start before its
/// trigger: video access units and audio access units with their times, bounded by a duration
/// and a byte cap, the video indexed by IDR.
///
/// It keeps everything from the newest IDR at or before `newest − duration` on, so a clip that
/// reaches `duration` back starts on a keyframe; older video goes a whole group of pictures at
/// a time, and audio that ends before the oldest video kept goes with it. Past the byte cap,
/// whole groups go even when that leaves less than the duration (a clip then starts later than
/// asked). So memory stays below the cap plus one group of pictures. The writing thread alone
/// uses it.
struct EncodedPreRoll {
    /// AAC access units and where they sit: `startTime` is the first input frame's place on the
    /// recording's audio timeline, in ticks of the sample rate.
    struct AudioPackets {
        var packets: [[UInt8]]
        var startTime: Int64
        var bytes: Int { packets.reduce(0) { $0 + $1.count } }
        /// Where the last packet's audio ends.
        var end: Int64 { startTime + Int64(packets.count * 1024) }
    }

    /// How far back the pre-roll reaches, in video ticks.
    let durationTicks: Int64
    /// The most bytes kept.
    let byteLimit: Int
    /// Video ticks per second and audio frames per second, to compare their times.
    let videoTimescale: Int64
    let audioRate: Int64
    private var video = Ring<EncodedVideoSample>()
    private var audio = Ring<AudioPackets>()
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

    /// Adds AAC access units.
    mutating func append(_ packets: AudioPackets) {
        audio.append(packets)
        byteCount += packets.bytes
        trim()
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
        // Audio that ends before the oldest kept picture starts, less one access unit (a
        // clip's AAC needs the one before its first for priming).
        guard let first = video.first?.presentationTime else { return }
        let oldest = first * audioRate / videoTimescale - 1024
        while let packets = audio.first, packets.end < oldest, let dropped = audio.removeFirst() { byteCount -= dropped.bytes }
    }

    /// The video from the newest IDR at or before `time` (video ticks) on, in decode order;
    /// from the oldest IDR kept when none is that early.
    func video(from time: Int64) -> [EncodedVideoSample] {
        guard let start = keyframes.last(where: { video[$0].presentationTime <= time }) ?? keyframes.first else { return [] }
        return (start..<video.endIndex).map { video[$0] }
    }

    /// The audio access units kept, oldest first.
    var audioPackets: [AudioPackets] { (audio.startIndex..<audio.endIndex).map { audio[$0] } }
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
