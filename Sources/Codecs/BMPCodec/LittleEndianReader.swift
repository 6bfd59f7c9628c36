import ImageCore

/// Little-endian fields of a file, each read checked against the file's end: a field the file does
/// not hold whole is `truncated_image` (`what` names it in the message).
struct LittleEndianReader {
    let data: [UInt8]

    func u16(_ offset: Int, _ what: String) throws(ImageError) -> Int {
        try require(offset, 2, what)
        return Int(data[offset]) | Int(data[offset + 1]) << 8
    }

    func u32(_ offset: Int, _ what: String) throws(ImageError) -> UInt32 {
        try require(offset, 4, what)
        return UInt32(data[offset]) | UInt32(data[offset + 1]) << 8 | UInt32(data[offset + 2]) << 16 | UInt32(data[offset + 3]) << 24
    }

    func i32(_ offset: Int, _ what: String) throws(ImageError) -> Int {
        Int(Int32(bitPattern: try u32(offset, what)))
    }

    private func require(_ offset: Int, _ count: Int, _ what: String) throws(ImageError) {
        guard offset >= 0, offset <= data.count - count else {
            throw .truncated("the BMP file (\(data.count) bytes) ends before its \(what) at byte \(offset)")
        }
    }
}
