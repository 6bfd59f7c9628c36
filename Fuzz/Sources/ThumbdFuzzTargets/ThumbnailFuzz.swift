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
        let request = ThumbnailRequest(size: 1 + knob % 64, fit: knob & 0x40 == 0 ? .cover : .contain,
                                       encoding: encodings[(knob >> 2) % encodings.count], limits: FuzzSupport.limits)
        if let thumbnail = try? Thumbnailer.make(from: data, request) {
            try FuzzSupport.require(thumbnail.width >= 1 && thumbnail.height >= 1 && thumbnail.width <= request.size
                                && thumbnail.height <= request.size,
                                "a \(thumbnail.width)x\(thumbnail.height) thumbnail for size \(request.size)")
            try FuzzSupport.require(!thumbnail.bytes.isEmpty, "an empty thumbnail")
        }
        _ = try? ImageCodecs.needsColorConversion(data)
        _ = try? ImageCodecs.metadata(in: data)
    }
}
