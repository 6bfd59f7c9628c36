import ImageCore

/// The ISO-BMFF boxes of the JPEG XL container ('JXL ' signature box, ftyp, jxlc or jxlp, metadata
/// boxes), checked by hand before libjxl sees the data: every top-level box must be whole.
///
/// libjxl stops reading once it has the frame thumbd wants, so a file cut inside a later box (the
/// rest of an animation, an Exif box after the codestream) would otherwise decode as if whole. A bare
/// codestream has no sizes to check: libjxl itself asks for more input when a cut reaches the
/// frames it decodes.
enum JXLContainer {
    /// `truncated_image` when the data ends inside a box (header or payload), `corrupt_image` for an
    /// impossible box size. A box of size 0 runs to the end of the file, and ends the walk.
    static func checkBoxes(_ data: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        var offset = 0
        while offset < data.count {
            let remaining = data.count - offset
            guard remaining >= 8 else {
                throw .truncated("JPEG XL data ends early (truncated file): \(remaining) bytes of a box header at offset \(offset)")
            }
            let size32 = bigEndian(data, at: offset, count: 4)
            let headerSize = size32 == 1 ? 16 : 8
            var size = size32
            switch size32 {
            case 0:
                return
            case 1:
                guard remaining >= 16 else {
                    throw .truncated("JPEG XL data ends early (truncated file): a box header at offset \(offset) is cut")
                }
                size = bigEndian(data, at: offset + 8, count: 8)
            default:
                break
            }
            guard size >= headerSize else {
                throw .corrupt("JPEG XL box at offset \(offset) declares an impossible size \(size)")
            }
            guard size <= remaining else {
                throw .truncated("JPEG XL data ends early (truncated file): a box at offset \(offset) declares \(size) bytes, \(remaining) remain")
            }
            offset += size
        }
    }

    /// An unsigned big-endian number of `count` bytes (4 or 8); past Int.max / 2 it is returned as
    /// Int.max, which no file can hold.
    private static func bigEndian(_ data: UnsafeBufferPointer<UInt8>, at offset: Int, count: Int) -> Int {
        let value = (0..<count).reduce(UInt64(0)) { $0 << 8 | UInt64(data[offset + $1]) }
        return value > UInt64(Int.max / 2) ? Int.max : Int(value)
    }
}
