/// `hdlr`: which handler interprets a media or its data (QuickTime File Format, "Handler
/// Reference Atom"). In `mdia` the component type is `mhlr` and the subtype `vide` or `soun`; in
/// `minf` it is `dhlr`/`url `. The name is a Pascal string in QuickTime (a C string in ISO
/// files, which the reader also accepts).
package struct HandlerAtom: QuickTimeAtom {
    package static let type: FourCC = "hdlr"
    package var componentType: FourCC
    package var componentSubtype: FourCC
    package var name: String

    package init(componentType: FourCC, componentSubtype: FourCC, name: String) {
        self.componentType = componentType
        self.componentSubtype = componentSubtype
        self.name = name
    }

    package func writeBody(to w: inout ByteWriter) {
        w.writeVersionAndFlags(version: 0, flags: 0)
        w.write(componentType)
        w.write(componentSubtype)
        w.writeZeros(12)  // manufacturer, flags, flags mask
        w.writePascalString(name)
    }

    package init(body r: inout ByteReader) throws(MovieFormatError) {
        _ = try r.readVersionAndFlags()
        componentType = try r.readFourCC()
        componentSubtype = try r.readFourCC()
        try r.skip(12)
        let rest = Array(r.rest)
        if let length = rest.first, Int(length) == rest.count - 1 {
            name = String(decoding: rest.dropFirst(), as: UTF8.self)
        } else {
            name = String(decoding: rest.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
