import ImageCore
import WebPCodec

/// WebP: the RIFF container parser every entry point runs first, then libwebp.
enum WebPFuzz {
    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        let knob = FuzzSupport.knob(data)
        _ = try? WebPCodec.readInfo(data)
        _ = try? WebPCodec.metadata(in: data)
        _ = try? WebPCodec.embeddedColor(in: data)
        if let decoded = try? WebPCodec.decode(data, limits: FuzzSupport.limits, scale: FuzzSupport.scale(knob)) {
            try FuzzSupport.require(decoded.pixels.pixels.count == decoded.pixels.width * decoded.pixels.height * 4,
                                "a pixel buffer of the wrong length")
        }
    }
}
