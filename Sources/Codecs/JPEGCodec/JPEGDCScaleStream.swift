/// A progressive JPEG cut to what a 1/8 decode reads.
///
/// At a 1/8 DCT scale libjpeg-turbo turns each 8x8 block of a full-resolution component (luma, or
/// every component of a 4:4:4 file) into one pixel: its DC coefficient, through the 1x1 inverse DCT.
/// A progressive file sends those components' AC coefficients in scans of their own, and decoding
/// them is most of a progressive decode's time, all of it for nothing at this scale. Subsampled
/// components (the chroma of 4:2:0) are decoded at 2x2 from their first AC coefficients, so their
/// scans stay. With block smoothing off (it guesses AC coefficients a scan has not sent yet; in a
/// complete file none is missing), the pixels are exactly those of the whole file at 1/8.
extension JPEGStructure {
    /// The file without the AC scans of its full-resolution components, or nil when it has none
    /// (a sequential file, an arithmetic-coded one, one whose markers were not all read).
    func dcScaleStream(_ data: [UInt8]) -> [UInt8]? {
        guard isWholeHuffmanProgressive(data),
              let maxH = components.map(\.horizontalSampling).max(),
              let maxV = components.map(\.verticalSampling).max() else { return nil }
        let fullResolution = Set(components.filter { $0.horizontalSampling == maxH && $0.verticalSampling == maxV }.map(\.id))
        let skipped = scans.filter { scan in
            scan.spectralStart > 0 && !scan.componentIDs.isEmpty && scan.componentIDs.allSatisfy(fullResolution.contains)
        }
        guard !skipped.isEmpty else { return nil }
        var stream: [UInt8] = []
        stream.reserveCapacity(endOfImage)
        var kept = 0
        for scan in skipped {
            stream += data[kept..<scan.bytes.lowerBound]
            kept = scan.bytes.upperBound
        }
        stream += data[kept..<endOfImage]
        return stream
    }
}

/// A progressive JPEG at a 1/4 scale, without its last bits of detail.
///
/// At 1/4 libjpeg-turbo's 2x2 inverse DCT reads four coefficients of each block. Encoders send the
/// last bit of every AC coefficient in refinement scans at the end of the file (libjpeg's default
/// script: three of its ten scans, half the entropy-coded bytes after the first passes). Without
/// them the four coefficients lose at most their last bit: `thumbd-bench progressive` measured the
/// thumbnails at SSIM 0.9982 or better against the whole file's, on 25 progressive photos (the
/// corpus's and progressive copies of its baseline ones), at 72 % of the decode time. At 1/2 the
/// same cut fell to 0.9942, under the 0.995 the thumbnails must keep, so it is used at 1/4 only.
extension JPEGStructure {
    /// The file up to its last scan that is not an AC refinement, then its end; nil when none is
    /// left out (a sequential or arithmetic-coded file, one whose last scan is not an AC refinement).
    func quarterScaleStream(_ data: [UInt8]) -> [UInt8]? {
        guard isWholeHuffmanProgressive(data),
              let lastKept = scans.lastIndex(where: { $0.spectralStart == 0 || $0.refinedBit == 0 }),
              lastKept < scans.count - 1 else { return nil }
        return firstScans(data, count: lastKept + 1)
    }

    /// What the cuts need: a progressive, Huffman-coded file whose every marker was read, up to its end.
    func isWholeHuffmanProgressive(_ data: [UInt8]) -> Bool {
        coding == .progressive && !arithmetic && endsWithEOI && !truncated && endOfImage <= data.count && !scans.isEmpty
    }

    /// The file up to the end of its `count`th scan, then its end marker: a complete file that sends
    /// only those scans (what the rest would refine stays as sent).
    func firstScans(_ data: [UInt8], count: Int) -> [UInt8] {
        Array(data[..<scans[count - 1].bytes.upperBound]) + [0xFF, 0xD9]
    }
}
