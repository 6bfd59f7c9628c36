/// Reads the Orientation tag (0x0112) from an EXIF TIFF structure.
///
/// JPEG carries it in APP1 after "Exif\0\0", WebP in its EXIF chunk, PNG in eXIf. Every offset is
/// bounds-checked: the data comes from strangers' files. Anything malformed reads as upright.
public enum ExifOrientation {
    /// `tiff` starts at the TIFF header ("II*\0" or "MM\0*"); a leading "Exif\0\0" is skipped.
    public static func read<Bytes: RandomAccessCollection>(tiff: Bytes) -> Orientation
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var start = tiff.startIndex
        let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
        if tiff.count >= 6, tiff.prefix(6).elementsEqual(exifPrefix) { start += 6 }
        let end = tiff.endIndex
        guard end - start >= 8 else { return .up }

        let littleEndian: Bool
        switch (tiff[start], tiff[start + 1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return .up
        }
        func u16(_ offset: Int) -> Int? {
            let at = start + offset
            guard offset >= 0, at + 2 <= end else { return nil }
            let a = Int(tiff[at]), b = Int(tiff[at + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let lo = u16(littleEndian ? offset : offset + 2),
                  let hi = u16(littleEndian ? offset + 2 : offset) else { return nil }
            return hi << 16 | lo
        }
        guard u16(2) == 42, let ifd0 = u32(4), let count = u16(ifd0) else { return .up }
        for entry in 0..<min(count, 512) {
            let at = ifd0 + 2 + entry * 12
            guard let tag = u16(at) else { return .up }
            if tag == 0x0112 {
                guard let type = u16(at + 2), type == 3, let value = u16(at + 8) else { return .up }
                return Orientation(exifValue: value)
            }
        }
        return .up
    }
}
