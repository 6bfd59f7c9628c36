/// The top-level boxes of an ISO-BMFF file (AVIF, HEIC: ftyp, meta, mdat, …), read by hand before
/// libavif or libheif sees the data.
///
/// Both libraries read whatever bytes they are given and report a file cut inside `mdat` as a parse
/// failure or not at all. A file cut short in transit must be refused as `truncated_image`, so every
/// top-level box's declared size is checked against the bytes actually present, as WebPContainer does
/// for RIFF chunks. `format` names the format in messages ("AVIF", "HEIC").
public struct ISOBMFFTopLevel: Sendable {
    public struct Box: Sendable, Equatable {
        public let type: String
        public let offset: Int
        /// Whole box, header included.
        public let size: Int
        public let headerSize: Int

        public var payload: Range<Int> { offset + headerSize..<offset + size }
    }

    public let boxes: [Box]
    public let majorBrand: String
    public let compatibleBrands: [String]

    public var brands: [String] { [majorBrand] + compatibleBrands }

    private static let ftyp: [UInt8] = Array("ftyp".utf8)

    /// Validates the box structure of the whole file and reads the brands of its `ftyp`.
    ///
    /// `truncated_image` when the data ends inside a box (header or payload); `corrupt_image` when it
    /// is not ISO-BMFF at all or a box header is impossible.
    public init<Bytes: RandomAccessCollection>(_ data: Bytes, format: String) throws(ImageError)
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let bytes = Reader(data: data, format: format)
        let count = data.count
        guard count > 0 else { throw .corrupt("the \(format) file is empty") }
        if count < 16 {
            // A prefix of a real ftyp box is a cut-off file; anything else is not ISO-BMFF. An ftyp
            // box is far under 16 MiB, so its size starts with a zero byte, and holds at least 16.
            var consistent = bytes[0] == 0 && (4..<max(4, min(count, 8))).allSatisfy { bytes[$0] == Self.ftyp[$0 - 4] }
            if count >= 4 {
                let size = bytes.be32(at: 0)
                consistent = consistent && (size == 1 || size >= 16)
            }
            if consistent {
                throw .truncated("\(format) data ends early (truncated file): \(count) bytes, shorter than the ftyp box")
            }
            throw .corrupt("not an \(format) file: no ISO-BMFF ftyp box at the start (\(count) bytes)")
        }

        var offset = 0
        var boxes: [Box] = []
        var major: String?
        var compatible: [String] = []
        while offset < count {
            let box = try bytes.boxHeader(at: offset)
            if offset == 0 {
                guard box.type == "ftyp" else {
                    throw .corrupt("not an \(format) file: it starts with a \"\(box.type)\" box, not ftyp")
                }
                guard box.size >= box.headerSize + 8 else {
                    throw .corrupt("the ftyp box is \(box.size) bytes, too small to hold its brands")
                }
                let start = box.headerSize
                major = bytes.fourCC(at: start)
                // Compatible brands follow the major brand and the minor version.
                var at = start + 8
                while at + 4 <= box.size {
                    compatible.append(bytes.fourCC(at: at))
                    at += 4
                }
            }
            boxes.append(box)
            offset += box.size
        }
        guard let major else { throw .corrupt("not an \(format) file: no ftyp box") }
        self.boxes = boxes
        self.majorBrand = major
        self.compatibleBrands = compatible
    }

    /// The first top-level box of a type.
    public func first(_ type: String) -> Box? { boxes.first { $0.type == type } }

    /// The boxes inside `range` (a box's payload, past any FullBox header), in order. A child that
    /// runs past its parent is `corrupt_image`: the parent itself is whole (the top level was checked).
    public static func children<Bytes: RandomAccessCollection>(_ data: Bytes, in range: Range<Int>, format: String) throws(ImageError) -> [Box]
    where Bytes.Element == UInt8, Bytes.Index == Int {
        guard range.lowerBound >= 0, range.upperBound <= data.count else {
            throw .corrupt("\(format) box range \(range) lies outside the \(data.count)-byte file")
        }
        let bytes = Reader(data: data, format: format)
        var boxes: [Box] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            do {
                let box = try bytes.boxHeader(at: offset, end: range.upperBound)
                boxes.append(box)
                offset += box.size
            } catch where error.code == .truncatedImage {
                throw .corrupt("\(format) box at offset \(offset) runs past the end of the box that holds it")
            }
        }
        return boxes
    }

    /// Bounds-checked big-endian reads over any byte collection indexed from 0.
    struct Reader<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
        let data: Bytes
        let format: String

        subscript(_ offset: Int) -> UInt8 { data[data.startIndex + offset] }

        func be32(at offset: Int) -> Int {
            (0..<4).reduce(0) { $0 << 8 | Int(self[offset + $1]) }
        }

        func be64(at offset: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(self[offset + $1]) }
        }

        func fourCC(at offset: Int) -> String {
            String(decoding: (0..<4).map { self[offset + $0] }, as: UTF8.self)
        }

        func boxHeader(at offset: Int, end: Int? = nil) throws(ImageError) -> Box {
            let remaining = (end ?? data.count) - offset
            guard remaining >= 8 else {
                throw .truncated("\(format) data ends early (truncated file): \(remaining) bytes of a box header at offset \(offset)")
            }
            let type = fourCC(at: offset + 4)
            // Box types are four printable characters; top-level ones are always plain ASCII.
            guard (0..<4).allSatisfy({ (0x20...0x7E).contains(self[offset + 4 + $0]) }) else {
                throw .corrupt("\(format) data holds an invalid box header at offset \(offset)")
            }
            let size32 = be32(at: offset)
            switch size32 {
            case 0:
                // Runs to the end of the file: a cut inside it cannot be seen here (the library may see it).
                return Box(type: type, offset: offset, size: remaining, headerSize: 8)
            case 1:
                guard remaining >= 16 else {
                    throw .truncated("\(format) data ends early (truncated file): the \"\(type)\" box header at offset \(offset) is cut")
                }
                let large = be64(at: offset + 8)
                guard large >= 16 else {
                    throw .corrupt("\(format) box \"\(type)\" at offset \(offset) declares an impossible size \(large)")
                }
                guard large <= UInt64(remaining) else {
                    throw .truncated("\(format) data ends early (truncated file): box \"\(type)\" at offset \(offset) declares \(large) bytes, \(remaining) remain")
                }
                return Box(type: type, offset: offset, size: Int(large), headerSize: 16)
            case let size where size < 8:
                throw .corrupt("\(format) box \"\(type)\" at offset \(offset) declares an impossible size \(size)")
            case let size:
                guard size <= remaining else {
                    throw .truncated("\(format) data ends early (truncated file): box \"\(type)\" at offset \(offset) declares \(size) bytes, \(remaining) remain")
                }
                return Box(type: type, offset: offset, size: size, headerSize: 8)
            }
        }
    }
}
