/// Where each enabled channel sits in one scan (one sample of every enabled channel) that an
/// IIO device's buffer delivers through its character device, and how to decode it.
///
/// The kernel lays the enabled channels out in the order of their `_index`, each at an offset
/// that is a multiple of its own storage size, and pads the scan to a multiple of the largest
/// storage size (Documentation/iio/iio_devbuf.rst, "IIO buffer"). A channel's `_type` reads
/// `[be|le]:[s|u]bits/storagebits[Xrepeat][>>shift]`, such as `le:s12/16>>4` or `le:s64/64>>0`.
struct IIOScanLayout: Sendable, Equatable {
    /// One enabled channel's element.
    struct Element: Sendable, Equatable {
        var name: String
        var index: Int
        var type: ElementType
        /// The byte offset of the element within a scan.
        var offset = 0
    }

    /// A parsed `_type` file.
    struct ElementType: Sendable, Equatable {
        var bigEndian: Bool
        var signed: Bool
        var bits: Int
        var storageBytes: Int
        var repeatCount: Int
        var shift: Int

        /// Parses `text`, such as `le:s12/16>>4`; `nil` when it is not of that form or its
        /// sizes cannot be decoded (storage of 1, 2, 4 or 8 bytes, bits within the storage).
        init?(parsing text: String) {
            let parts = text.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0] == "le" || parts[0] == "be" else { return nil }
            bigEndian = parts[0] == "be"
            var rest = Substring(parts[1])
            guard let sign = rest.first, sign == "s" || sign == "u" || sign == "S" || sign == "U" else { return nil }
            signed = sign == "s" || sign == "S"
            rest = rest.dropFirst()
            let shiftParts = rest.split(separator: ">", omittingEmptySubsequences: false)  // "a>>b" is a, "", b
            guard shiftParts.count == 1 || (shiftParts.count == 3 && shiftParts[1].isEmpty) else { return nil }
            let shiftText = shiftParts.count == 3 ? shiftParts[2] : "0"
            rest = shiftParts[0]
            var repeatText: Substring = "1"
            if let x = rest.firstIndex(of: "X") {
                repeatText = rest[rest.index(after: x)...]
                rest = rest[..<x]
            }
            let sizes = rest.split(separator: "/")
            guard sizes.count == 2, let bits = Int(sizes[0]), let storage = Int(sizes[1]),
                  let shift = Int(shiftText), let repeatCount = Int(repeatText),
                  [8, 16, 32, 64].contains(storage), bits > 0, shift >= 0, bits + shift <= storage,
                  (1...16).contains(repeatCount) else { return nil }
            self.bits = bits
            storageBytes = storage / 8
            self.shift = shift
            self.repeatCount = repeatCount
        }

        /// The element's first value, decoded from `bytes` at `offset`.
        func value(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
            var raw: UInt64 = 0
            for i in 0..<storageBytes {
                let byte = UInt64(bytes[offset + (bigEndian ? i : storageBytes - 1 - i)])
                raw = raw << 8 | byte
            }
            raw >>= UInt64(shift)
            if bits < 64 { raw &= (1 << UInt64(bits)) - 1 }
            guard signed, bits < 64, raw & (1 << UInt64(bits - 1)) != 0 else { return Int64(bitPattern: raw) }
            return Int64(bitPattern: raw | ~((1 << UInt64(bits)) - 1))
        }
    }

    /// The enabled elements in scan order, each with its offset.
    let elements: [Element]
    /// The bytes of one scan, padding included.
    let scanBytes: Int

    /// Lays out `elements` (any order) as the kernel does.
    init(elements unordered: [Element]) {
        var offset = 0, largest = 1
        var placed: [Element] = []
        for var element in unordered.sorted(by: { $0.index < $1.index }) {
            let size = element.type.storageBytes
            offset = (offset + size - 1) / size * size
            element.offset = offset
            offset += size * element.type.repeatCount
            largest = max(largest, size)
            placed.append(element)
        }
        elements = placed
        scanBytes = (offset + largest - 1) / largest * largest
    }

    /// The element called `name`, such as `in_accel_x` or `in_timestamp`.
    func element(_ name: String) -> Element? { elements.first { $0.name == name } }
}
