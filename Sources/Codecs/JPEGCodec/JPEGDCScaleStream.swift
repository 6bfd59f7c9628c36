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
        guard coding == .progressive, !arithmetic, endsWithEOI, !truncated, endOfImage <= data.count,
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
