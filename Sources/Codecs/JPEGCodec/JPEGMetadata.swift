import ImageCore

extension JPEGCodec {
    /// The metadata a JPEG carries, read from its markers without decoding.
    public static func metadata(in data: [UInt8]) throws(ImageError) -> EmbeddedMetadata {
        try JPEGDecoder.structure(of: data).metadata
    }

    /// The same JPEG without its metadata segments (EXIF, XMP, ICC, comments, other APPn) and
    /// without anything after the end marker. The entropy-coded data is copied byte for byte, so
    /// the pixels are exactly those of the input: no re-encoding, no loss.
    public static func removingMetadata(_ data: [UInt8]) throws(ImageError) -> [UInt8] {
        let structure = try JPEGDecoder.structure(of: data)
        var output: [UInt8] = []
        output.reserveCapacity(structure.endOfImage)
        var kept = 0
        for segment in structure.metadataSegments {
            output.append(contentsOf: data[kept..<segment.lowerBound])
            kept = segment.upperBound
        }
        output.append(contentsOf: data[kept..<structure.endOfImage])
        return output
    }
}
