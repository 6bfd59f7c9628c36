/// The colour table of a 1-, 4- or 8-bit BMP, as 256 opaque RGBA entries.
///
/// An index past the entries the file holds reads opaque black, as Firefox and Chromium show it
/// (Pillow shows a grey ramp there). The fourth byte of a Windows entry is reserved, not alpha.
struct BMPPalette: Equatable {
    /// 256 entries of R, G, B, A.
    let rgba: [UInt8]
    /// Entries read from the file.
    let count: Int

    /// `entries` holds `count` entries of `entrySize` bytes (3 for OS/2 1.x, 4 otherwise), each B, G, R.
    init(_ entries: ArraySlice<UInt8>, count: Int, entrySize: Int) {
        precondition(count <= 256 && entries.count >= count * entrySize, "palette bounds were checked by BMPHeader")
        var rgba = [UInt8](repeating: 0, count: 256 * 4)
        for alpha in stride(from: 3, to: rgba.count, by: 4) { rgba[alpha] = 255 }
        let base = entries.startIndex
        for i in 0..<count {
            let entry = base + i * entrySize
            rgba[i * 4] = entries[entry + 2]
            rgba[i * 4 + 1] = entries[entry + 1]
            rgba[i * 4 + 2] = entries[entry]
        }
        self.rgba = rgba
        self.count = count
    }
}
