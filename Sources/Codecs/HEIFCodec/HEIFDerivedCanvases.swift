import ImageCore

/// The canvas sizes that a HEIF file's derived images (`grid` tiles, `iovl` overlays) declare in
/// their own item data, read by hand before libheif decodes anything.
///
/// libheif 1.15 reports an image's size from its `ispe` property, but allocates a grid's or an
/// overlay's canvas from the size written in the item's data: a file whose `ispe` says 63x31 and whose
/// grid says 30000x30000 made `heif-convert` take 2 GiB (measured). So the pixel limit is checked
/// against these sizes too. Every derived item is checked, not only the primary image's chain: a
/// canvas no one would decode costs nothing to refuse, and the file is hostile anyway.
struct HEIFDerivedCanvases {
    struct Canvas: Equatable {
        let itemType: String
        let width: Int
        let height: Int
    }

    let canvases: [Canvas]

    static let format = "HEIC"

    init(_ data: [UInt8], _ top: ISOBMFFTopLevel) throws(ImageError) {
        guard let meta = top.first("meta") else {
            if top.first("moov") != nil {
                throw .unsupported("a HEIF image sequence without a still image (libheif \(LibHEIF.version) reads still images only)")
            }
            // A file that stops right after its ftyp box was cut there (meta always follows ftyp).
            if top.boxes.count == 1 { throw .truncated("HEIC data ends early (truncated file): nothing after the ftyp box") }
            throw .corrupt("the HEIC file has no meta box")
        }
        // meta is a FullBox: version and flags before its children.
        guard meta.payload.count >= 4 else { throw .corrupt("the HEIC meta box is too small") }
        let children = try ISOBMFFTopLevel.children(data, in: meta.payload.lowerBound + 4..<meta.payload.upperBound, format: Self.format)
        let derived = try Self.derivedItems(data, children.first { $0.type == "iinf" })
        guard !derived.isEmpty else {
            canvases = []
            return
        }
        guard let iloc = children.first(where: { $0.type == "iloc" }) else {
            throw .corrupt("the HEIC file has derived images but no iloc box")
        }
        let locations = try Self.locations(data, iloc)
        let idat = children.first { $0.type == "idat" }?.payload
        var canvases: [Canvas] = []
        for (id, type) in derived {
            guard let location = locations[id] else { throw .corrupt("HEIC \(type) item \(id) has no location") }
            let bytes = try Self.itemData(data, location, idat: idat, maxBytes: 12 + 8)
            canvases.append(try Self.canvas(type, bytes, item: id))
        }
        self.canvases = canvases
    }

    /// The largest canvas, in pixels (0 when there is none).
    var largest: Canvas? { canvases.max { $0.width * $0.height < $1.width * $1.height } }

    // MARK: iinf: which items are grids and overlays

    static func derivedItems(_ data: [UInt8], _ iinf: ISOBMFFTopLevel.Box?) throws(ImageError) -> [(UInt32, String)] {
        guard let iinf else { return [] }
        var cursor = Cursor(data: data, range: iinf.payload)
        let version = try cursor.u8()
        try cursor.skip(3)
        try cursor.skip(version == 0 ? 2 : 4)  // entry count: the infe boxes say it again
        var items: [(UInt32, String)] = []
        for infe in try ISOBMFFTopLevel.children(data, in: cursor.position..<iinf.payload.upperBound, format: format) where infe.type == "infe" {
            var entry = Cursor(data: data, range: infe.payload)
            let infeVersion = try entry.u8()
            try entry.skip(3)
            // Versions 0 and 1 (no item type) cannot be grids; libheif reads only 2 and 3 as images.
            guard infeVersion >= 2 else { continue }
            let id = infeVersion == 2 ? UInt32(try entry.u16()) : try entry.u32()
            try entry.skip(2)  // item_protection_index
            let type = try entry.fourCC()
            if type == "grid" || type == "iovl" { items.append((id, type)) }
        }
        return items
    }

    // MARK: iloc: where an item's data is

    struct Location {
        /// 0: file offsets; 1: offsets into idat.
        let constructionMethod: Int
        let extents: [(offset: Int, length: Int)]
    }

    static func locations(_ data: [UInt8], _ iloc: ISOBMFFTopLevel.Box) throws(ImageError) -> [UInt32: Location] {
        var cursor = Cursor(data: data, range: iloc.payload)
        let version = try cursor.u8()
        try cursor.skip(3)
        guard version <= 2 else { throw .unsupported("HEIC iloc box version \(version) is not supported") }
        let sizes = try cursor.u8(), more = try cursor.u8()
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0xF), baseOffsetSize = Int(more >> 4)
        let indexSize = version >= 1 ? Int(more & 0xF) : 0
        let count = version < 2 ? Int(try cursor.u16()) : Int(try cursor.u32())
        var locations: [UInt32: Location] = [:]
        for _ in 0..<count {
            let id = version < 2 ? UInt32(try cursor.u16()) : try cursor.u32()
            let method = version >= 1 ? Int(try cursor.u16() & 0xF) : 0
            try cursor.skip(2)  // data_reference_index
            let base = try cursor.sized(baseOffsetSize)
            let extentCount = Int(try cursor.u16())
            var extents: [(offset: Int, length: Int)] = []
            for _ in 0..<extentCount {
                _ = try cursor.sized(indexSize)
                let offset = try cursor.sized(offsetSize), length = try cursor.sized(lengthSize)
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard !overflow else { throw .corrupt("HEIC iloc offset overflows") }
                extents.append((start, length))
            }
            locations[id] = Location(constructionMethod: method, extents: extents)
        }
        return locations
    }

    /// The first `maxBytes` of an item's data (a grid or overlay descriptor is at most 20 bytes).
    static func itemData(_ data: [UInt8], _ location: Location, idat: Range<Int>?, maxBytes: Int) throws(ImageError) -> [UInt8] {
        let space: Range<Int>
        switch location.constructionMethod {
        case 0: space = 0..<data.count
        case 1:
            guard let idat else { throw .corrupt("HEIC item data in idat, but there is no idat box") }
            space = idat
        default: throw .unsupported("HEIC item construction method \(location.constructionMethod) is not supported")
        }
        var bytes: [UInt8] = []
        for extent in location.extents where bytes.count < maxBytes {
            let start = space.lowerBound + extent.offset
            // Length 0 means the rest of the space.
            let length = extent.length == 0 ? space.upperBound - start : extent.length
            guard extent.offset >= 0, start <= space.upperBound, length >= 0, length <= space.upperBound - start else {
                // The top-level boxes are whole, so data past them is a corrupt offset, except in a
                // file whose mdat is missing: that is a cut, as libheif also says.
                throw .truncated("HEIC data ends early (truncated file): item data at \(extent.offset)+\(length) lies past the end")
            }
            bytes += data[start..<start + min(length, maxBytes - bytes.count)]
        }
        return bytes
    }

    // MARK: The descriptors (ISO/IEC 23008-12, 6.6.2.3 grid and 6.6.2.2 overlay)

    static func canvas(_ type: String, _ bytes: [UInt8], item: UInt32) throws(ImageError) -> Canvas {
        var cursor = Cursor(data: bytes, range: 0..<bytes.count)
        _ = try cursor.u8()  // version
        let flags = try cursor.u8()
        if type == "grid" {
            try cursor.skip(2)  // rows - 1, columns - 1
        } else {
            try cursor.skip(8)  // canvas fill colour, four 16-bit values
        }
        let large = flags & 1 != 0
        let width = large ? Int(try cursor.u32()) : Int(try cursor.u16())
        let height = large ? Int(try cursor.u32()) : Int(try cursor.u16())
        return Canvas(itemType: type, width: width, height: height)
    }
}

/// Big-endian reads within a range of bytes; reading past it is `corrupt_image` (the boxes around it
/// are whole, so a short field is a bad box, not a cut file).
struct Cursor {
    let data: [UInt8]
    let range: Range<Int>
    private(set) var position: Int

    init(data: [UInt8], range: Range<Int>) {
        self.data = data
        self.range = range
        self.position = range.lowerBound
    }

    mutating func take(_ count: Int) throws(ImageError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= range.upperBound - position else {
            throw .corrupt("HEIC box at \(range.lowerBound) is shorter than its fields")
        }
        defer { position += count }
        return data[position..<position + count]
    }

    mutating func skip(_ count: Int) throws(ImageError) { _ = try take(count) }
    mutating func u8() throws(ImageError) -> UInt8 { try take(1).first! }
    mutating func u16() throws(ImageError) -> UInt16 { UInt16(try sized(2)) }
    mutating func u32() throws(ImageError) -> UInt32 { UInt32(try sized(4)) }
    mutating func fourCC() throws(ImageError) -> String { String(decoding: try take(4), as: UTF8.self) }

    /// An unsigned number of 0, 4 or 8 bytes (iloc's field sizes), refused when it does not fit an Int.
    mutating func sized(_ count: Int) throws(ImageError) -> Int {
        guard [0, 1, 2, 4, 8].contains(count) else { throw .corrupt("HEIC field of \(count) bytes") }
        let value = try take(count).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value <= UInt64(Int.max / 2) else { throw .corrupt("HEIC offset or length \(value) is impossible") }
        return Int(value)
    }
}
