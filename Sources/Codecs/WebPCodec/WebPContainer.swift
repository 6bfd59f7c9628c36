import ImageCore

/// The RIFF container around a WebP bitstream, read by hand before libwebp sees the data.
///
/// libwebp decodes whatever bytes it has; a file cut short in transit must be refused, never padded
/// out, so the container's own sizes are checked against the bytes actually present.
struct WebPContainer {
    /// Total bytes covered by the RIFF header's size field (including the 8-byte RIFF header).
    let riffEnd: Int
    /// FourCC of the first chunk: "VP8 ", "VP8L" or "VP8X".
    let firstChunk: String
    /// Metadata chunks (EXIF, XMP, ICCP) and bytes after the RIFF container.
    let metadata: EmbeddedMetadata
    /// The first ICCP chunk's payload: the colour profile of the pixels.
    let iccProfile: [UInt8]?

    static let headerSize = 12
    private static let riff: [UInt8] = Array("RIFF".utf8)
    private static let webp: [UInt8] = Array("WEBP".utf8)

    /// Validates the container and every chunk header inside it.
    ///
    /// Refuses with `truncated_image` when the data ends before the RIFF size says it should, and
    /// with `corrupt_image` when it is not a RIFF WebP at all or a chunk overruns the container.
    /// Bare VP8/VP8L bitstreams (which libwebp accepts for internal use) are refused: a WebP file is
    /// always a RIFF container.
    init(_ data: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        let count = data.count
        if count < Self.headerSize {
            // A short prefix of a real WebP header is a cut-off file; anything else is not WebP.
            let magicMatches = (0..<min(count, 4)).allSatisfy { data[$0] == Self.riff[$0] }
                && (8..<max(8, count)).allSatisfy { data[$0] == Self.webp[$0 - 8] }
            if magicMatches && count > 0 {
                throw .truncated("WebP data ends early (truncated file): \(count) bytes, shorter than the RIFF header")
            }
            throw .corrupt("not a RIFF WebP file (\(count) bytes)")
        }
        guard (0..<4).allSatisfy({ data[$0] == Self.riff[$0] }),
              (0..<4).allSatisfy({ data[8 + $0] == Self.webp[$0] }) else {
            throw .corrupt("not a RIFF WebP file: the RIFF/WEBP signature is missing")
        }
        let riffSize = Self.le32(data, at: 4)
        // The payload holds "WEBP" and at least one chunk header.
        guard riffSize >= 4 + 8 else {
            throw .corrupt("RIFF size \(riffSize) is too small to hold a WebP chunk")
        }
        let riffEnd = 8 + riffSize
        guard riffEnd <= count else {
            throw .truncated("WebP data ends early (truncated file): the RIFF header declares \(riffEnd) bytes, the file has \(count)")
        }

        var offset = Self.headerSize
        var first: String?
        var metadata: EmbeddedMetadata = riffEnd < count ? .trailingData : []
        var iccProfile: [UInt8]?
        while offset + 8 <= riffEnd {
            let fourcc = String(decoding: UnsafeBufferPointer(rebasing: data[offset..<offset + 4]), as: UTF8.self)
            let size = Self.le32(data, at: offset + 4)
            let payloadEnd = offset + 8 + size
            guard payloadEnd <= riffEnd else {
                throw .corrupt("WebP chunk \"\(fourcc)\" at offset \(offset) declares \(size) bytes, past the end of the RIFF container")
            }
            if first == nil { first = fourcc }
            switch fourcc {
            case "EXIF": metadata.insert(.exif)
            case "XMP ": metadata.insert(.xmp)
            case "ICCP":
                metadata.insert(.iccProfile)
                if iccProfile == nil { iccProfile = Array(UnsafeBufferPointer(rebasing: data[(offset + 8)..<payloadEnd])) }
            default: break
            }
            // Chunks are padded to an even size; a writer may leave out the pad byte of the last one.
            offset = payloadEnd + (size & 1)
        }
        guard let first else {
            throw .corrupt("WebP container holds no chunk")
        }
        guard ["VP8 ", "VP8L", "VP8X"].contains(first) else {
            throw .corrupt("WebP container starts with chunk \"\(first)\", not VP8, VP8L or VP8X")
        }
        self.riffEnd = riffEnd
        self.firstChunk = first
        self.metadata = metadata
        self.iccProfile = iccProfile
    }

    var isExtended: Bool { firstChunk == "VP8X" }

    static func le32(_ data: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        Int(data[offset]) | Int(data[offset + 1]) << 8 | Int(data[offset + 2]) << 16 | Int(data[offset + 3]) << 24
    }
}
