import ImageCore
import PNGCodec

/// PNG through the C bridge to libpng: header and colour chunks, then a full or row-reduced decode.
enum PNGFuzz {
    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        let knob = FuzzSupport.knob(data)
        let info = try? PNGCodec.readInfo(data, limits: FuzzSupport.limits)
        _ = try? PNGCodec.embeddedColor(in: data)
        if let decoded = try? PNGCodec.decode(data, limits: FuzzSupport.limits, scale: FuzzSupport.scale(knob)), let info {
            try FuzzSupport.require(decoded.info.width == info.width && decoded.info.height == info.height,
                                "decode says \(decoded.info.width)x\(decoded.info.height), the header \(info.width)x\(info.height)")
            try FuzzSupport.require(decoded.pixels.pixels.count == decoded.pixels.width * decoded.pixels.height * 4,
                                "a pixel buffer of the wrong length")
        }
    }
}
