extension AnnexBStream {
    /// The codec of an Annex-B stream, which decides how its NAL unit headers read.
    package enum Codec: Hashable, Sendable {
        /// H.264: one header byte, the type in its low five bits.
        case h264
        /// HEVC: two header bytes, the type in bits 1 to 6 of the first.
        case hevc

        /// The codec of a stream whose first NAL unit is `unit`: HEVC when it reads as an HEVC
        /// parameter set, delimiter or SEI of the base layer (`0x40 0x01` for a VPS); anything
        /// an H.264 stream starts with reads otherwise.
        package static func detect(firstUnit unit: Range<Int>?, in buffer: UnsafeRawBufferPointer) -> Codec {
            guard let unit, unit.count >= 2 else { return .h264 }
            let first = buffer[unit.lowerBound], second = buffer[unit.lowerBound + 1]
            return first & 0x81 == 0 && (32...40).contains(first >> 1) && second == 1 ? .hevc : .h264
        }

        /// The NAL unit type in a unit's first byte.
        package func type(_ header: UInt8) -> UInt8 { self == .h264 ? header & 0x1F : (header >> 1) & 0x3F }

        /// Whether units of `type` carry a slice of a picture.
        package func isSlice(_ type: UInt8) -> Bool { self == .h264 ? type == 1 || type == 5 : type <= 9 || (16...21).contains(type) }

        /// Whether units of `type` are parameter sets, which live in the sample description.
        package func isParameterSet(_ type: UInt8) -> Bool { self == .h264 ? type == 7 || type == 8 : (32...34).contains(type) }

        /// Whether units of `type` mark a random access point: IDR for H.264, IRAP for HEVC.
        package func isSync(_ type: UInt8) -> Bool { self == .h264 ? type == 5 : (16...23).contains(type) }

        /// The parameter set types a configuration needs, in the order of its arrays.
        package var parameterSetTypes: [UInt8] { self == .h264 ? [7, 8] : [32, 33, 34] }
    }

    /// The first parameter set of each kind `codec` needs among `units`, in stream order;
    /// `complete` when every kind was found.
    package static func firstParameterSets(_ units: some Sequence<(Range<Int>, UInt8)>, codec: Codec,
                                   in buffer: UnsafeRawBufferPointer) -> (sets: [[UInt8]], complete: Bool) {
        var seen: Set<UInt8> = [], sets: [[UInt8]] = []
        for (unit, header) in units {
            let type = codec.type(header)
            if codec.isParameterSet(type), seen.insert(type).inserted { sets.append(Array(buffer[unit])) }
        }
        return (sets, seen.count == codec.parameterSetTypes.count)
    }
}
