import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The live stream's hub under concurrency, as its readers (server connections) use it: a
/// publisher on one thread, readers on others, waits signalled and bounded.
@Suite struct LiveHubTests {
    /// Publishes `count` chunks of one frame each (IDR every 30, a part every 6).
    static func publish(_ hub: LiveStreamHub, count: Int) {
        let start = LiveStreamStart(codecs: "avc1.64001E", pictureCodecs: "avc1.64001E", pageInitialization: [1, 2, 3],
                                    picturePageInitialization: [1, 2, 3], timescale: 90_000)
        hub.begin(start, width: 320, height: 180)
        hub.addInitialization([9, 9])
        for i in 0..<count {
            let time = UInt64(i) * 3000
            // Each chunk's bytes are its index, so a reader can tell which it got.
            let bytes = withUnsafeBytes(of: UInt32(i).bigEndian, Array.init)
            hub.append(bytes, pictureBytes: nil, time: time, end: time + 3000, isIndependent: i % 30 == 0,
                       startsSegment: i % 30 == 0, startsPart: i % 6 == 0, orientation: .up, captureTime: 0)
            if i % 6 == 5 { hub.completePart() }
            if i % 30 == 29 { hub.completeSegment() }
        }
        hub.end()
    }

    /// Four stream readers, each taking what is there and waiting for more, see the chunks in
    /// order: from an independent one on, each next one or a skip to a newer independent one,
    /// through the last chunk of the stream, then its end; a playlist reader blocked on a later
    /// part is answered.
    @Test func readersFollowAPublisherOnAnotherThread() async throws {
        let hub = LiveStreamHub(partTarget: 0.2, targetDuration: 1)
        let results = LockedValue<[[UInt32]]>([])
        let readers = (0..<4).map { _ in
            DedicatedThread(name: "hub-reader") {
                var position = LiveStreamHub.StreamPosition()
                var seen: [UInt32] = []
                var first = true
                while true {
                    let deadline = SystemClock.monotonicNanoseconds() + 5_000_000_000
                    guard case .bytes(var bytes) = hub.read(&position, until: deadline) else { break }
                    if first { bytes.removeFirst(3); first = false }  // the initialization segment
                    // The orientation message a reader gets first, or after a skip, is an emsg box.
                    var at = 0
                    while at + 4 <= bytes.count {
                        if at + 8 <= bytes.count, bytes[(at + 4)..<(at + 8)] == Array("emsg".utf8)[...] {
                            at += Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                            continue
                        }
                        seen.append(UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3]))
                        at += 4
                    }
                }
                results.withLock { $0.append(seen) }
            }
        }
        let playlistWaiter = DedicatedThread(name: "hub-playlist") {
            let deadline = SystemClock.monotonicNanoseconds() + 5_000_000_000
            let snapshot = hub.playlist(waitingFor: 3, part: 2, until: deadline)
            // Part 3.2, or anything after it (the window may have moved on by the time it looks).
            let holds = snapshot?.segments.contains {
                $0.sequenceNumber > 3 || ($0.sequenceNumber == 3 && $0.parts.count > 2 && $0.parts[2].isComplete)
            } ?? false
            results.withLock { $0.append(holds ? [1] : [0]) }
        }
        try await Task.sleep(for: .milliseconds(50))
        Self.publish(hub, count: 3000)
        for reader in readers { reader.join() }
        playlistWaiter.join()
        let all = results.withLock { $0 }
        #expect(all.contains([1]), "the blocked playlist request saw part 3.2")
        for seen in all where seen.count > 1 {
            #expect(seen.last == 2999, "a reader takes what is left of an ended stream")
            #expect(seen[0] % 30 == 0, "a reader starts at an IDR, not \(seen[0])")
            for (a, b) in zip(seen, seen.dropFirst()) {
                #expect(b == a + 1 || (b > a && b % 30 == 0), "after chunk \(a) came \(b)")
            }
        }
    }

    /// A reader waiting for a stream that never comes is released by the wake-up its server
    /// gives when it stops, and by the hub's shutdown.
    @Test func waitingReadersAreReleasedWhenCancelled() async throws {
        let hub = LiveStreamHub(partTarget: 0.2, targetDuration: 1)
        let cancelled = LockedValue(false)
        let outcome = LockedValue<String>("")
        let reader = DedicatedThread(name: "hub-reader") {
            var position = LiveStreamHub.StreamPosition()
            let result = hub.read(&position, until: SystemClock.monotonicNanoseconds() + 30_000_000_000,
                                  cancelled: { cancelled.withLock { $0 } })
            outcome.withLock { if case .end = result { $0 = "end" } else { $0 = "other" } }
        }
        try await Task.sleep(for: .milliseconds(50))
        let asked = Date()
        cancelled.withLock { $0 = true }
        hub.wakeReaders()
        reader.join()
        #expect(outcome.withLock { $0 } == "end" && Date().timeIntervalSince(asked) < 1)
        let part = DedicatedThread(name: "hub-part") {
            _ = hub.part(5, 0, until: SystemClock.monotonicNanoseconds() + 30_000_000_000)
        }
        try await Task.sleep(for: .milliseconds(50))
        let shut = Date()
        hub.shutDown()
        part.join()
        #expect(Date().timeIntervalSince(shut) < 1)
    }
}
