/// The three planes of a tightly packed I420 picture that a conversion writes.
package struct I420Destination {
    package let y: UnsafeMutablePointer<UInt8>
    package let u: UnsafeMutablePointer<UInt8>
    package let v: UnsafeMutablePointer<UInt8>
    package let width: Int
    package let height: Int
    package var chromaWidth: Int { (width + 1) / 2 }
    package var chromaHeight: Int { (height + 1) / 2 }

    /// The planes of a buffer of ``PixelFormat/byteCount(width:height:)`` bytes: Y, then U, then V,
    /// rows without padding.
    package init(packed base: UnsafeMutableRawPointer, width: Int, height: Int) {
        self.width = width
        self.height = height
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        y = base.assumingMemoryBound(to: UInt8.self)
        u = y + width * height
        v = u + chroma
    }
}
