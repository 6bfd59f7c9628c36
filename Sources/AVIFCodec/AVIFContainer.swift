import ImageCore

/// The ISO-BMFF boxes at the top of an AVIF file (ftyp, meta, mdat, moov, …), read by hand before
/// libavif sees the data.
///
/// libavif 0.11.1 reads whatever bytes it is given, and reports a file cut inside `mdat` as a BMFF
/// parse failure ("extent offset failed size hint sanity check"). A file cut short in transit must
/// be refused as `truncated_image`, so every top-level box's declared size is checked against the
/// bytes actually present, as WebPContainer does for RIFF chunks.
struct AVIFContainer {
    let majorBrand: String
    let compatibleBrands: [String]

    static let avifBrands: Set<String> = ["avif", "avis"]
    private static let ftyp: [UInt8] = Array("ftyp".utf8)

    /// Validates the box structure of the whole file and the brands of its `ftyp`.
    ///
    /// `truncated_image` when the data ends inside a box (header or payload); `corrupt_image` when it
    /// is not ISO-BMFF at all or a box header is impossible; `unsupported_format` for an ISO-BMFF
    /// file whose brands are not AVIF's (HEIC, MP4, …).
    init(_ data: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        let count = data.count
        guard count > 0 else { throw .corrupt("the AVIF file is empty") }
        if count < 16 {
            // A prefix of a real ftyp box is a cut-off file; anything else is not ISO-BMFF. An ftyp
            // box is far under 16 MiB, so its size starts with a zero byte, and holds at least 16.
            var consistent = data[0] == 0 && (4..<max(4, min(count, 8))).allSatisfy { data[$0] == Self.ftyp[$0 - 4] }
            if count >= 4 {
                let size = Self.be32(data, at: 0)
                consistent = consistent && (size == 1 || size >= 16)
            }
            if consistent {
                throw .truncated("AVIF data ends early (truncated file): \(count) bytes, shorter than the ftyp box")
            }
            throw .corrupt("not an AVIF file: no ISO-BMFF ftyp box at the start (\(count) bytes)")
        }

        var offset = 0
        var major: String?
        var compatible: [String] = []
        while offset < count {
            let box = try Self.boxHeader(data, at: offset)
            if offset == 0 {
                guard box.type == "ftyp" else {
                    throw .corrupt("not an AVIF file: it starts with a \"\(box.type)\" box, not ftyp")
                }
                guard box.size >= box.headerSize + 8 else {
                    throw .corrupt("the ftyp box is \(box.size) bytes, too small to hold its brands")
                }
                let start = box.headerSize
                major = Self.fourCC(data, at: start)
                // Compatible brands follow the major brand and the minor version.
                var at = start + 8
                while at + 4 <= box.size {
                    compatible.append(Self.fourCC(data, at: at))
                    at += 4
                }
            }
            offset += box.size
        }
        guard let major else { throw .corrupt("not an AVIF file: no ftyp box") }
        self.majorBrand = major
        self.compatibleBrands = compatible

        guard Self.avifBrands.contains(major) || compatible.contains(where: Self.avifBrands.contains) else {
            let named = ([major] + compatible).map { "'\($0)'" }.joined(separator: ", ")
            throw .unsupported("an ISO-BMFF file whose brands (\(named)) are not AVIF's (HEIC or another HEIF or MP4 format)")
        }
    }

    // MARK: Boxes

    struct BoxHeader {
        let type: String
        /// Whole box, header included.
        let size: Int
        let headerSize: Int
    }

    private static func boxHeader(_ data: UnsafeBufferPointer<UInt8>, at offset: Int) throws(ImageError) -> BoxHeader {
        let remaining = data.count - offset
        guard remaining >= 8 else {
            throw .truncated("AVIF data ends early (truncated file): \(remaining) bytes of a box header at offset \(offset)")
        }
        let type = fourCC(data, at: offset + 4)
        // Box types are four printable characters; top-level ones are always plain ASCII.
        guard (0..<4).allSatisfy({ (0x20...0x7E).contains(data[offset + 4 + $0]) }) else {
            throw .corrupt("AVIF data holds an invalid box header at offset \(offset)")
        }
        let size32 = be32(data, at: offset)
        switch size32 {
        case 0:
            // Runs to the end of the file: a cut inside it cannot be seen here (libavif may see it).
            return BoxHeader(type: type, size: remaining, headerSize: 8)
        case 1:
            guard remaining >= 16 else {
                throw .truncated("AVIF data ends early (truncated file): the \"\(type)\" box header at offset \(offset) is cut")
            }
            let large = be64(data, at: offset + 8)
            guard large >= 16 else {
                throw .corrupt("AVIF box \"\(type)\" at offset \(offset) declares an impossible size \(large)")
            }
            guard large <= UInt64(remaining) else {
                throw .truncated("AVIF data ends early (truncated file): box \"\(type)\" at offset \(offset) declares \(large) bytes, \(remaining) remain")
            }
            return BoxHeader(type: type, size: Int(large), headerSize: 16)
        case let size where size < 8:
            throw .corrupt("AVIF box \"\(type)\" at offset \(offset) declares an impossible size \(size)")
        case let size:
            guard size <= remaining else {
                throw .truncated("AVIF data ends early (truncated file): box \"\(type)\" at offset \(offset) declares \(size) bytes, \(remaining) remain")
            }
            return BoxHeader(type: type, size: size, headerSize: 8)
        }
    }

    private static func fourCC(_ data: UnsafeBufferPointer<UInt8>, at offset: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: data[offset..<offset + 4]), as: UTF8.self)
    }

    static func be32(_ data: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
    }

    static func be64(_ data: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(data[offset + $1]) }
    }
}
