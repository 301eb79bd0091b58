import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Draws the test pattern's pictures straight into I420 or NV12 memory.
///
/// Each picture is a pure function of its frame number. Everything that costs per-pixel work is
/// computed once, in `init`: the textured background is a tile repeated across rows a tile
/// wider than the picture, so scrolling it is one `memcpy` per row; the noise patch copies rows
/// out of a precomputed noise table at offsets that change every frame; the marker blocks, the
/// moving box and the counter are `memset` runs.
///
/// What is drawn, bottom to top:
/// - a textured background, scrolled 4 pixels left and 2 up per frame;
/// - a patch of noise that changes every frame, so an encoder cannot predict it;
/// - a box bouncing around the picture;
/// - the frame number, seven digits in a 5×7 bitmap font, white on black, in the centre;
/// - a white arrow pointing up in the top centre;
/// - a red block at the top-left corner and a green block at the top-right, each a quarter of
///   the width and height, so a viewer (or a test) sees at once which side is up.
///
/// Apart from the red and green blocks every colour stays within 16 of neutral chroma, so no
/// other part of the picture converts to a saturated red or green.
package struct TestPatternRenderer: Sendable {
    package let width: Int
    package let height: Int
    package let pixelFormat: PixelFormat

    /// A rectangle in luma pixels; all four values are even.
    package struct Rectangle: Hashable, Sendable {
        var x: Int, y: Int, width: Int, height: Int
    }

    /// A Y′CbCr colour, BT.601 video range.
    package struct Colour: Hashable, Sendable {
        var y: UInt8, u: UInt8, v: UInt8
        static let red = Colour(y: 81, u: 90, v: 240)
        static let green = Colour(y: 145, u: 54, v: 34)
        static let white = Colour(y: 235, u: 128, v: 128)
        static let black = Colour(y: 16, u: 128, v: 128)
        static let box = Colour(y: 180, u: 144, v: 116)
        static let boxInner = Colour(y: 60, u: 116, v: 140)
    }

    /// The number of digits the counter shows; the frame number wraps after 10⁷ frames.
    package static let counterDigits = 7
    /// Pixels the background moves per frame, left and up (even, so chroma moves whole samples).
    package static let scroll = (x: 4, y: 2)

    /// The top-left red block.
    package let redMarker: Rectangle
    /// The top-right green block.
    package let greenMarker: Rectangle
    /// The black box the counter is drawn in.
    package let counterBox: Rectangle
    /// The size of one font pixel in picture pixels.
    package let counterScale: Int
    /// The area the up arrow is drawn in.
    package let arrowBox: Rectangle
    package let movingBoxSize: (width: Int, height: Int)
    package let noisePatch: Rectangle

    private static let tile = 256
    private static let chromaTile = tile / 2
    private let lumaStride: Int
    private let chromaStride: Int
    private let lumaTexture: [UInt8]
    /// I420: the U tile rows then the V tile rows. NV12: interleaved UV tile rows.
    private let chromaTexture: [UInt8]
    private let noise: [UInt8]
    /// Per arrow row (relative to ``arrowBox``), the first column and the number of columns.
    private let arrowSpans: [(start: Int, count: Int)]
    /// NV12 rows of one colour's interleaved U and V, as wide as the chroma plane.
    private let chromaRows: [Colour: [UInt8]]

    /// Precomputes the background, noise and layout for pictures of the given size.
    /// - Precondition: `width` and `height` are even and at least 64.
    package init(width: Int, height: Int, pixelFormat: PixelFormat) {
        precondition(width >= 64 && height >= 64 && width % 2 == 0 && height % 2 == 0)
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        func even(_ value: Int) -> Int { value & ~1 }

        let markerWidth = even(width / 4), markerHeight = even(height / 4)
        redMarker = Rectangle(x: 0, y: 0, width: markerWidth, height: markerHeight)
        greenMarker = Rectangle(x: width - markerWidth, y: 0, width: markerWidth, height: markerHeight)

        let unitsWide = 1 + Self.counterDigits * 6 + 1, unitsHigh = 2 + 7 + 2
        counterScale = max(1, min((width / 2) / unitsWide, (height / 6) / unitsHigh))
        let counterWidth = even(unitsWide * counterScale + 1), counterHeight = even(unitsHigh * counterScale + 1)
        counterBox = Rectangle(x: even((width - counterWidth) / 2), y: even((height - counterHeight) / 2),
                               width: counterWidth, height: counterHeight)

        let margin = even(markerHeight / 8)
        let arrowWidth = markerWidth, arrowHeight = markerHeight - 2 * margin
        arrowBox = Rectangle(x: even((width - arrowWidth) / 2), y: margin, width: arrowWidth, height: arrowHeight)
        let headHeight = max(1, arrowHeight / 2), half = arrowWidth / 2, shaft = max(1, arrowWidth / 6)
        arrowSpans = (0..<arrowHeight).map { row in
            let reach = row < headHeight ? max(1, half * (row + 1) / headHeight) : shaft
            return (start: half - reach, count: 2 * reach)
        }

        movingBoxSize = (even(width / 8), even(height / 8))
        noisePatch = Rectangle(x: even(width / 16), y: even(height * 5 / 8), width: even(width / 8), height: even(height / 8))

        // The background tile: soft waves, diagonal stripes and a little fixed grain in luma;
        // slow waves within ±14 of neutral in chroma. Rows are a tile wider than the picture.
        let tile = Self.tile, chromaTile = Self.chromaTile
        lumaStride = width + tile
        chromaStride = width / 2 + chromaTile
        var generator = NoiseGenerator(seed: 0x5EED)
        let grain = (0..<(tile * tile)).map { _ in Int(generator.next() % 13) - 6 }
        var luma = [UInt8](repeating: 0, count: lumaStride * tile)
        let waveX = (0..<tile).map { sin(2 * Double.pi * Double($0) / Double(tile)) }
        let waveY = (0..<tile).map { sin(4 * Double.pi * Double($0) / Double(tile)) }
        for y in 0..<tile {
            for x in 0..<tile {
                let stripe = ((x + 2 * y) / 16) % 2 == 0 ? 18 : -18
                let value = 118 + Int(48 * waveX[x] * waveY[y]) + stripe + grain[y * tile + x]
                luma[y * lumaStride + x] = UInt8(clamping: value)
            }
            for x in tile..<lumaStride { luma[y * lumaStride + x] = luma[y * lumaStride + x % tile] }
        }
        lumaTexture = luma
        func u(_ x: Int, _ y: Int) -> UInt8 { UInt8(128 + Int(14 * sin(2 * Double.pi * Double(y) / Double(chromaTile)))) }
        func v(_ x: Int, _ y: Int) -> UInt8 { UInt8(128 + Int(14 * cos(2 * Double.pi * Double(x) / Double(chromaTile)))) }
        var chroma = [UInt8]()
        switch pixelFormat {
        case .i420:
            chroma.reserveCapacity(2 * chromaStride * chromaTile)
            for plane in [u, v] {
                for y in 0..<chromaTile {
                    for x in 0..<chromaStride { chroma.append(plane(x % chromaTile, y)) }
                }
            }
        case .nv12:
            chroma.reserveCapacity(2 * chromaStride * chromaTile)
            for y in 0..<chromaTile {
                for x in 0..<chromaStride {
                    chroma.append(u(x % chromaTile, y))
                    chroma.append(v(x % chromaTile, y))
                }
            }
        }
        chromaTexture = chroma
        noise = (0..<65_536).map { _ in UInt8(16 + generator.next() % 220) }
        var rows = [Colour: [UInt8]]()
        for colour in [Colour.red, .green, .white, .black, .box, .boxInner] {
            rows[colour] = (0..<width).map { $0 % 2 == 0 ? colour.u : colour.v }
        }
        chromaRows = rows
    }

    /// The top-left corner of the bouncing box in frame `n`.
    package func movingBoxOrigin(frame n: UInt64) -> (x: Int, y: Int) {
        func bounce(_ travelled: UInt64, _ range: Int) -> Int {
            guard range > 0 else { return 0 }
            let t = Int(travelled % UInt64(2 * range))
            return (t < range ? t : 2 * range - t) & ~1
        }
        return (bounce(n &* 6, width - movingBoxSize.width), bounce(n &* 4, height - movingBoxSize.height))
    }

    /// Fills a tightly packed picture at `base` with white (video-range luma 235, neutral
    /// chroma): the test pattern's mark of a whole second.
    package func renderWhite(into base: UnsafeMutableRawPointer) {
        let luma = width * height
        memset(base, 235, luma)
        memset(base + luma, 128, pixelFormat.byteCount(width: width, height: height) - luma)
    }

    /// Draws frame `n` into a tightly packed picture at `base`
    /// (``PixelFormat/byteCount(width:height:)`` bytes).
    package func render(frame n: UInt64, into base: UnsafeMutableRawPointer) {
        let lumaPlane = base.assumingMemoryBound(to: UInt8.self)
        let chromaWidth = width / 2, chromaHeight = height / 2
        let chromaPlane = lumaPlane + width * height

        // Background.
        let offsetX = Int(n &* UInt64(Self.scroll.x) % UInt64(Self.tile))
        let offsetY = Int(n &* UInt64(Self.scroll.y) % UInt64(Self.tile))
        lumaTexture.withUnsafeBufferPointer { texture in
            for y in 0..<height {
                let row = (y + offsetY) % Self.tile
                memcpy(lumaPlane + y * width, texture.baseAddress! + row * lumaStride + offsetX, width)
            }
        }
        let chromaX = offsetX / 2, chromaY = offsetY / 2
        chromaTexture.withUnsafeBufferPointer { texture in
            let source = texture.baseAddress!
            switch pixelFormat {
            case .i420:
                let planeBytes = chromaStride * Self.chromaTile
                for plane in 0..<2 {
                    let destination = chromaPlane + plane * chromaWidth * chromaHeight
                    for y in 0..<chromaHeight {
                        let row = (y + chromaY) % Self.chromaTile
                        memcpy(destination + y * chromaWidth, source + plane * planeBytes + row * chromaStride + chromaX,
                               chromaWidth)
                    }
                }
            case .nv12:
                for y in 0..<chromaHeight {
                    let row = (y + chromaY) % Self.chromaTile
                    memcpy(chromaPlane + y * 2 * chromaWidth, source + 2 * (row * chromaStride + chromaX), 2 * chromaWidth)
                }
            }
        }

        // Noise: rows of the noise table at offsets that differ from frame to frame.
        noise.withUnsafeBufferPointer { table in
            var generator = NoiseGenerator(seed: n &+ 1)
            let span = UInt64(table.count - noisePatch.width)
            for y in 0..<noisePatch.height {
                let offset = Int(generator.next() % span)
                memcpy(lumaPlane + (noisePatch.y + y) * width + noisePatch.x, table.baseAddress! + offset, noisePatch.width)
            }
        }

        // The bouncing box, with a dark centre so it has edges inside as well.
        let origin = movingBoxOrigin(frame: n)
        let box = Rectangle(x: origin.x, y: origin.y, width: movingBoxSize.width, height: movingBoxSize.height)
        fill(box, with: .box, in: base)
        fill(Rectangle(x: box.x + (box.width / 4 & ~1), y: box.y + (box.height / 4 & ~1),
                       width: box.width / 2 & ~1, height: box.height / 2 & ~1), with: .boxInner, in: base)

        // The counter.
        fill(counterBox, with: .black, in: base)
        var remaining = n % 10_000_000
        for position in (0..<Self.counterDigits).reversed() {
            let glyph = Self.font[Int(remaining % 10)]
            remaining /= 10
            let cellX = counterBox.x + (1 + position * 6) * counterScale
            for (glyphRow, bits) in glyph.enumerated() {
                let top = counterBox.y + (2 + glyphRow) * counterScale
                for column in 0..<5 where bits & (0b10000 >> column) != 0 {
                    let x = cellX + column * counterScale
                    for y in top..<(top + counterScale) {
                        memset(lumaPlane + y * width + x, Int32(Colour.white.y), counterScale)
                    }
                }
            }
        }

        // The up arrow: luma spans per row, neutral chroma over the pairs of rows they cover.
        for (row, span) in arrowSpans.enumerated() {
            memset(lumaPlane + (arrowBox.y + row) * width + arrowBox.x + span.start, Int32(Colour.white.y), span.count)
        }
        for row in stride(from: 0, to: arrowSpans.count, by: 2) {
            let span = arrowSpans[row]
            let start = (arrowBox.x + span.start) / 2, end = (arrowBox.x + span.start + span.count + 1) / 2
            fillChroma(row: (arrowBox.y + row) / 2, from: start, count: end - start, with: .white, in: base)
        }

        // The orientation markers, last so nothing covers them.
        fill(redMarker, with: .red, in: base)
        fill(greenMarker, with: .green, in: base)
    }

    /// Fills a rectangle with even origin and size.
    private func fill(_ rectangle: Rectangle, with colour: Colour, in base: UnsafeMutableRawPointer) {
        let lumaPlane = base.assumingMemoryBound(to: UInt8.self)
        for y in rectangle.y..<(rectangle.y + rectangle.height) {
            memset(lumaPlane + y * width + rectangle.x, Int32(colour.y), rectangle.width)
        }
        for row in (rectangle.y / 2)..<((rectangle.y + rectangle.height) / 2) {
            fillChroma(row: row, from: rectangle.x / 2, count: rectangle.width / 2, with: colour, in: base)
        }
    }

    /// Sets `count` chroma samples of chroma row `row`, starting at chroma column `column`.
    private func fillChroma(row: Int, from column: Int, count: Int, with colour: Colour, in base: UnsafeMutableRawPointer) {
        let chromaWidth = width / 2, chromaHeight = height / 2
        let chromaPlane = base.assumingMemoryBound(to: UInt8.self) + width * height
        switch pixelFormat {
        case .i420:
            memset(chromaPlane + row * chromaWidth + column, Int32(colour.u), count)
            memset(chromaPlane + chromaWidth * chromaHeight + row * chromaWidth + column, Int32(colour.v), count)
        case .nv12:
            chromaRows[colour]!.withUnsafeBufferPointer { pairs in
                _ = memcpy(chromaPlane + row * 2 * chromaWidth + 2 * column, pairs.baseAddress!, 2 * count)
            }
        }
    }

    /// Digits 0–9, seven rows of five pixels each, most significant bit on the left.
    package static let font: [[UInt8]] = [
        [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],
        [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
        [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],
        [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],
        [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],
        [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],
        [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],
        [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],
        [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],
        [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],
    ]
}
