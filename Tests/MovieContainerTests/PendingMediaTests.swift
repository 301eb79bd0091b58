import Testing
@testable import MovieContainer

/// A track's pending media against a plain byte array: what goes in, copied or borrowed, comes
/// out in order, however much a fragment has taken from the front.
@Suite struct PendingMediaTests {
    @Test("pending media gives back exactly what was appended, copied or borrowed, across removals")
    func pendingMediaMatchesAnArray() {
        var generator = AnnexBStreamTests.Generator(state: 11)
        let source = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        source.withUnsafeBytes { source in
            for _ in 0..<300 {
                var media = PendingMedia()
                var model: [UInt8] = []
                var lastEnd = 0
                for _ in 0..<Int.random(in: 1...40, using: &generator) {
                    // Often right after the last piece, so contiguous borrowed pieces merge.
                    let start = Bool.random(using: &generator) ? lastEnd : Int.random(in: 0..<source.count, using: &generator)
                    let end = min(source.count, start + Int.random(in: 0...300, using: &generator))
                    lastEnd = end
                    let piece = UnsafeRawBufferPointer(rebasing: source[start..<end])
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0:
                        media.append(copying: piece)
                        model += piece
                    case 1:
                        media.append(bigEndian: UInt32(piece.count) | 0xA500_0000)
                        model += [0xA5, UInt8(piece.count >> 16 & 0xFF), UInt8(piece.count >> 8 & 0xFF), UInt8(piece.count & 0xFF)]
                    case 2:
                        // As a fragment does when it writes all but the last sample.
                        let count = Int.random(in: 0...media.count, using: &generator)
                        media.removeFirst(count)
                        model.removeFirst(count)
                    default:
                        media.append(borrowing: piece)
                        model += piece
                    }
                    #expect(media.count == model.count)
                    let prefix = Int.random(in: 0...media.count, using: &generator)
                    let gathered = media.withBuffers(prefix: prefix) { buffers in buffers.flatMap { Array($0) } }
                    #expect(gathered == Array(model.prefix(prefix)))
                }
                media.removeAll()
                #expect(media.isEmpty && media.withBuffers(prefix: 0) { $0.isEmpty })
            }
        }
    }
}
