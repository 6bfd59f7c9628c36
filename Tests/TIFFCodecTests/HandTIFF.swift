/// A classic little-endian TIFF assembled field by field, for files no writer would make (a
/// directory claiming 100000 x 100000 pixels, absurd tiles), and a reader of any file's first
/// directory entries, for setting their fields to hostile values.
struct HandTIFF {
    struct Entry {
        let tag: UInt16
        /// 3 SHORT, 4 LONG.
        let type: UInt16
        let values: [UInt32]
    }

    var entries: [Entry] = []
    /// Image data, placed right after the header (offset 8).
    var data: [UInt8] = []

    static let dataOffset: UInt32 = 8

    mutating func short(_ tag: UInt16, _ values: UInt32...) { entries.append(Entry(tag: tag, type: 3, values: values)) }
    mutating func long(_ tag: UInt16, _ values: UInt32...) { entries.append(Entry(tag: tag, type: 4, values: values)) }

    /// A grey or RGB image of one strip (or one tile) holding `data`, with the size it claims.
    static func image(width: UInt32, height: UInt32, samples: UInt32 = 1, bits: UInt32 = 8, compression: UInt32 = 1,
                      rowsPerStrip: UInt32? = nil, tile: (UInt32, UInt32)? = nil,
                      data: [UInt8] = [UInt8](repeating: 0x55, count: 64)) -> HandTIFF {
        var tiff = HandTIFF(data: data)
        tiff.long(256, width)
        tiff.long(257, height)
        tiff.short(258, bits)
        tiff.short(259, compression)
        tiff.short(262, samples >= 3 ? 2 : 1)
        tiff.short(277, samples)
        if let (tileWidth, tileHeight) = tile {
            tiff.long(322, tileWidth)
            tiff.long(323, tileHeight)
            tiff.long(324, dataOffset)
            tiff.long(325, UInt32(data.count))
        } else {
            // Every strip points at the same bytes.
            let rows = rowsPerStrip ?? height
            let strips = Int((height + rows - 1) / rows)
            tiff.entries.append(Entry(tag: 273, type: 4, values: [UInt32](repeating: dataOffset, count: strips)))
            tiff.long(278, rows)
            tiff.entries.append(Entry(tag: 279, type: 4, values: [UInt32](repeating: UInt32(data.count), count: strips)))
        }
        return tiff
    }

    var bytes: [UInt8] {
        var out: [UInt8] = Array("II".utf8) + le16(42) + le32(0)
        out += data
        if out.count % 2 == 1 { out.append(0) }
        // Values longer than four bytes go after the data, before the directory.
        var fields: [[UInt8]] = []
        for entry in entries.sorted(by: { $0.tag < $1.tag }) {
            let payload = entry.values.flatMap { entry.type == 3 ? le16(UInt16(truncatingIfNeeded: $0)) : le32($0) }
            if payload.count <= 4 {
                fields.append(payload + [UInt8](repeating: 0, count: 4 - payload.count))
            } else {
                fields.append(le32(UInt32(out.count)))
                out += payload
            }
        }
        if out.count % 2 == 1 { out.append(0) }
        let directory = UInt32(out.count)
        out.replaceSubrange(4..<8, with: le32(directory))
        out += le16(UInt16(entries.count))
        for (entry, field) in zip(entries.sorted(by: { $0.tag < $1.tag }), fields) {
            out += le16(entry.tag) + le16(entry.type) + le32(UInt32(entry.values.count)) + field
        }
        out += le32(0)
        return out
    }

    /// Where each entry of the first directory of a classic TIFF sits: the offsets of its count and
    /// value fields, and whether the file is little-endian.
    static func entryFields(_ file: [UInt8]) -> (littleEndian: Bool, entries: [(tag: Int, count: Int, value: Int)]) {
        let little = file[0] == 0x49
        func number(_ at: Int, _ size: Int) -> Int {
            let bytes = file[at..<at + size]
            return little ? bytes.reversed().reduce(0) { $0 << 8 | Int($1) } : bytes.reduce(0) { $0 << 8 | Int($1) }
        }
        let directory = number(4, 4)
        let count = number(directory, 2)
        return (little, (0..<count).map { i in
            let at = directory + 2 + 12 * i
            return (number(at, 2), at + 4, at + 8)
        })
    }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
}
