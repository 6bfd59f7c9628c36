/// A progressive JPEG's first scans alone, as a browser shows the file while it loads: to measure
/// how far a decode at a reduced DCT scale must read before its pixels stop changing enough to
/// see (`thumbd-bench progressive`). The decoder's own cuts are in JPEGDCScaleStream.swift.
extension JPEGCodec {
    /// How many scans a progressive, Huffman-coded, whole file has; nil for any other.
    public static func progressiveScanCount(_ data: [UInt8]) -> Int? {
        wholeProgressive(data)?.scans.count
    }

    /// The file up to the end of its `count`th scan, then its end marker (`JPEGStructure.firstScans`).
    /// Nil when the file is not a whole progressive one or `count` is not 1 to its scan count.
    public static func firstScans(_ data: [UInt8], count: Int) -> [UInt8]? {
        guard let structure = wholeProgressive(data), (1...structure.scans.count).contains(count) else { return nil }
        return structure.firstScans(data, count: count)
    }

    private static func wholeProgressive(_ data: [UInt8]) -> JPEGStructure? {
        let structure = data.withUnsafeBufferPointer { JPEGStructure($0) }
        return structure.isWholeHuffmanProgressive(data) ? structure : nil
    }
}
