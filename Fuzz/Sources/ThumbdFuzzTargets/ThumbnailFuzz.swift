import ImageCodecs
import ImageCore
import ThumbVariant
import Thumbnailer

/// The whole thumbnail path from bytes, as a miss runs it, plus the header reads uploads make.
enum ThumbnailFuzz {
    /// Formats and encoder options in turn, sometimes under a byte cap; AVIF (aom) costs
    /// milliseconds even for 64 px, so it comes up rarely.
    static let encodings: [(Variant.Format, quality: Int, EncoderOptions)] = [
        (.auto, 82, .init()), (.jpeg, 82, .init()), (.png, 82, .init()), (.webp, 60, .init()), (.auto, 40, .init()),
        (.jpeg, 30, .init(progressiveJPEG: true)), (.webp, 82, .init(losslessWebP: true)), (.auto, 82, .init()),
        (.auto, 95, .init()), (.jpeg, 82, .init()), (.png, 82, .init()), (.webp, 60, .init()), (.auto, 82, .init()),
        (.jpeg, 95, .init()), (.png, 82, .init()), (.avif, 50, .init(avifSpeed: 10)),
    ]

    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        let knob = FuzzSupport.knob(data)
        // Squares and shapes, every fit (pad with each kind of background).
        let fits: [Fit] = [.cover, .contain, .pad]
        let backgrounds: [PadBackground] = [.white, .auto, .blur, .transparent]
        let width = 1 + knob % 64, height = knob & 0x80 == 0 ? width : 1 + (knob >> 3) % 48
        let (format, quality, options) = encodings[(knob >> 2) % encodings.count]
        let variant = Variant(width: width, height: height, fit: fits[(knob >> 4) % fits.count],
                              background: backgrounds[(knob >> 5) % backgrounds.count], format: format, quality: quality,
                              maxBytes: knob % 7 == 0 ? 600 + knob % 3000 : nil)
        let maker = ThumbnailMaker(limits: FuzzSupport.limits, encoder: options)
        // Half the inputs as `thumbd thumbnail` makes them: no placeholder, so a JPEG's centre crop
        // decodes only its window (jpeg_crop_scanline, jpeg_skip_scanlines).
        if let thumbnail = try? maker.make(data, as: variant, placeholder: data.count % 2 == 0) {
            try FuzzSupport.require(thumbnail.width >= 1 && thumbnail.height >= 1 && thumbnail.width <= variant.width
                                && thumbnail.height <= variant.height
                                && (variant.fit == .contain || (thumbnail.width, thumbnail.height) == (variant.width, variant.height)),
                                "a \(thumbnail.width)x\(thumbnail.height) thumbnail for \(variant.fit) \(variant.width)x\(variant.height)")
            try FuzzSupport.require(!thumbnail.bytes.isEmpty, "an empty thumbnail")
            try FuzzSupport.require(variant.maxBytes.map { thumbnail.bytes.count <= $0 } ?? true,
                                    "\(thumbnail.bytes.count) bytes over max_bytes=\(variant.maxBytes ?? 0)")
        }
        _ = try? ImageCodecs.needsColorConversion(data)
        _ = try? ImageCodecs.metadata(in: data)
    }
}
