import ImageCodecs
import ImageCore
import Thumbnailer

/// The whole thumbnail path from bytes, as a miss runs it, plus the header reads uploads make.
enum ThumbnailFuzz {
    /// Encodings in turn; AVIF (aom) costs milliseconds even for 64 px, so it comes up rarely.
    static let encodings: [EncodeSettings?] = [
        nil, .jpeg(quality: 82), .png, .webp(quality: 60), nil, .jpeg(quality: 30, progressive: true), .webpLossless, nil,
        nil, .jpeg(quality: 82), .png, .webp(quality: 60), nil, .jpeg(quality: 95), .png, .avif(quality: 50, speed: 10),
    ]

    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        let knob = FuzzSupport.knob(data)
        // Squares and shapes, every fit (pad with each kind of background).
        let fits: [Fit] = [.cover, .contain, .pad]
        let backgrounds: [PadBackground] = [.white, .auto, .blur, .transparent]
        let width = 1 + knob % 64, height = knob & 0x80 == 0 ? width : 1 + (knob >> 3) % 48
        let request = ThumbnailRequest(width: width, height: height, fit: fits[(knob >> 4) % fits.count],
                                       background: backgrounds[(knob >> 5) % backgrounds.count],
                                       encoding: encodings[(knob >> 2) % encodings.count], limits: FuzzSupport.limits)
        if let thumbnail = try? Thumbnailer.make(from: data, request) {
            try FuzzSupport.require(thumbnail.width >= 1 && thumbnail.height >= 1 && thumbnail.width <= request.width
                                && thumbnail.height <= request.height
                                && (request.fit == .contain || (thumbnail.width, thumbnail.height) == (request.width, request.height)),
                                "a \(thumbnail.width)x\(thumbnail.height) thumbnail for \(request.fit) \(request.width)x\(request.height)")
            try FuzzSupport.require(!thumbnail.bytes.isEmpty, "an empty thumbnail")
        }
        _ = try? ImageCodecs.needsColorConversion(data)
        _ = try? ImageCodecs.metadata(in: data)
    }
}
