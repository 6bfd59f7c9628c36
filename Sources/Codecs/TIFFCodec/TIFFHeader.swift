import ImageCore

/// The TIFF header, read by hand before libtiff sees the file: the signature says it is TIFF at
/// all (classic or BigTIFF, either byte order), and the first directory must lie within the data.
/// A file cut before its directory (libtiff writes the directory last) is `truncated_image` here,
/// in words a person can follow, instead of libtiff's "Cannot read TIFF directory count".
struct TIFFHeader {
    let littleEndian: Bool
    let isBigTIFF: Bool
    /// Where the first directory starts.
    let firstDirectory: UInt64

    static let classicSignatures: [[UInt8]] = [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A]]
    static let bigTIFFSignatures: [[UInt8]] = [[0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B]]

    /// True for data that starts with a TIFF or BigTIFF signature.
    static func sniff(_ data: [UInt8]) -> Bool {
        (classicSignatures + bigTIFFSignatures).contains { data.starts(with: $0) }
    }

    init(_ data: [UInt8]) throws(ImageError) {
        guard !data.isEmpty else { throw .corrupt("the TIFF file is empty") }
        let signatures = Self.classicSignatures + Self.bigTIFFSignatures
        guard let signature = signatures.first(where: { data.starts(with: $0) }) else {
            if data.count < 4, signatures.contains(where: { $0.starts(with: data) }) {
                throw .truncated("TIFF data ends early (truncated file): \(data.count) bytes, shorter than the signature")
            }
            throw .unsupported("not a TIFF file (no II*\\0, MM\\0* or BigTIFF signature)")
        }
        let littleEndian = signature[0] == 0x49
        let isBigTIFF = Self.bigTIFFSignatures.contains(signature)
        func number(at offset: Int, size: Int) -> UInt64 {
            Self.number(data, at: offset, size: size, littleEndian: littleEndian)
        }
        let headerSize = isBigTIFF ? 16 : 8
        guard data.count >= headerSize else {
            throw .truncated("TIFF data ends early (truncated file): \(data.count) bytes, shorter than the \(headerSize)-byte header")
        }
        // BigTIFF: bytes 4-5 give the size of an offset (8), 6-7 are zero.
        if isBigTIFF, number(at: 4, size: 2) != 8 || number(at: 6, size: 2) != 0 {
            throw .corrupt("BigTIFF header declares offsets of \(number(at: 4, size: 2)) bytes (only 8 is defined)")
        }
        let firstDirectory = isBigTIFF ? number(at: 8, size: 8) : number(at: 4, size: 4)
        guard firstDirectory >= UInt64(headerSize) else {
            throw .corrupt("TIFF header puts the first directory at \(firstDirectory), inside the header")
        }
        // The directory must be whole: its entry count, the entries and the offset of the next
        // directory after them. libtiff checks the values the entries point at.
        let countSize: UInt64 = isBigTIFF ? 8 : 2
        guard firstDirectory <= UInt64(data.count), UInt64(data.count) - firstDirectory >= countSize else {
            throw .truncated("TIFF data ends early (truncated file): the first directory is at \(firstDirectory), the file has \(data.count) bytes")
        }
        let entries = number(at: Int(firstDirectory), size: Int(countSize))
        let (entryBytes, overflow) = entries.multipliedReportingOverflow(by: isBigTIFF ? 20 : 12)
        let nextOffsetSize: UInt64 = isBigTIFF ? 8 : 4
        guard !overflow, entryBytes <= UInt64(data.count) - firstDirectory - countSize,
              UInt64(data.count) - firstDirectory - countSize - entryBytes >= nextOffsetSize else {
            throw .truncated("TIFF data ends early (truncated file): the first directory (\(entries) entries at \(firstDirectory)) runs past the end")
        }
        self.littleEndian = littleEndian
        self.isBigTIFF = isBigTIFF
        self.firstDirectory = firstDirectory
    }

    static func number(_ data: [UInt8], at offset: Int, size: Int, littleEndian: Bool) -> UInt64 {
        let bytes = data[offset..<offset + size]
        return littleEndian ? bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) } : bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
