

/// One atom found in a file: where it is, how large, and — for containers — what it holds.
package struct AtomNode: Sendable {
    /// The atom's type.
    package var type: FourCC
    /// The file offset of the atom's first byte (its size field).
    package var offset: UInt64
    /// The size the atom's header declares, header included; for a size-0 atom, the space to
    /// the end of its parent.
    package var size: UInt64
    /// 8, or 16 for a 64-bit size.
    package var headerSize: Int
    /// The atoms inside a container atom; empty for others.
    package var children: [AtomNode] = []
    /// A Boolean value that indicates whether the atom claims more bytes than the file holds.
    package var isTruncated = false
    /// The body bytes, for atoms inside a container the reader loaded (such as `moov`).
    package var body: ArraySlice<UInt8>?

    /// The first child of a type.
    package func child(_ type: FourCC) -> AtomNode? { children.first { $0.type == type } }

    /// All children of a type.
    package func children(_ type: FourCC) -> [AtomNode] { children.filter { $0.type == type } }

    /// The first atom found by following child types, such as `["mdia", "minf", "stbl"]`.
    package func descendant(_ path: [FourCC]) -> AtomNode? {
        var node = self
        for type in path {
            guard let next = node.child(type) else { return nil }
            node = next
        }
        return node
    }

    /// Parses the body as an atom type.
    package func decode<A: QuickTimeAtom>(_ atom: A.Type) throws(MovieFormatError) -> A {
        guard let body else { throw .invalidValue(type, "the atom's bytes were not loaded") }
        return try A(bodyBytes: body)
    }
}
