import CWebP
import ImageCore

/// Everything read from a WebP before decoding: libwebp's bitstream features, the canvas of an
/// animation and the EXIF orientation.
struct WebPHeader {
    let container: WebPContainer
    let width: Int
    let height: Int
    let hasAlpha: Bool
    let isAnimated: Bool
    /// 0 mixed/undefined, 1 lossy, 2 lossless (libwebp's `format`).
    let format: Int32
    let orientation: Orientation

    var isLossless: Bool { format == 2 }

    var info: ImageInfo {
        ImageInfo(format: .webp, width: width, height: height, hasAlpha: hasAlpha,
                  orientation: orientation, isAnimated: isAnimated)
    }

    init(_ data: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        container = try WebPContainer(data)
        guard let base = data.baseAddress else { throw .corrupt("empty WebP data") }

        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(base, data.count, &features)
        guard status == VP8_STATUS_OK else {
            // The container is complete (checked above), so a header libwebp cannot read is damaged,
            // even when libwebp asks for more data.
            if status == VP8_STATUS_UNSUPPORTED_FEATURE { throw .webp(status, "reading the header") }
            throw .corrupt("WebP header is invalid (libwebp status \(status.rawValue))")
        }
        var width = Int(features.width)
        var height = Int(features.height)
        var orientation = Orientation.up

        if container.isExtended {
            var webpData = WebPData(bytes: base, size: data.count)
            if let demux = WebPDemux(&webpData) {
                defer { WebPDemuxDelete(demux) }
                if features.has_animation != 0 {
                    width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
                    height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
                }
                orientation = Self.exifOrientation(demux)
            } else if features.has_animation != 0 {
                throw .corrupt("WebP animation container is invalid")
            }
            // A still image whose metadata the demuxer cannot parse still decodes; it reads as upright.
        }

        self.width = width
        self.height = height
        self.hasAlpha = features.has_alpha != 0
        self.isAnimated = features.has_animation != 0
        self.format = features.format
        self.orientation = orientation
    }

    private static func exifOrientation(_ demux: OpaquePointer) -> Orientation {
        // Looked up whatever the VP8X flags say: some writers add the chunk without setting EXIF_FLAG.
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demux, "EXIF", 1, &iterator) != 0 else { return .up }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let bytes = iterator.chunk.bytes, iterator.chunk.size > 0 else { return .up }
        return ExifOrientation.read(tiff: UnsafeBufferPointer(start: bytes, count: iterator.chunk.size))
    }
}
