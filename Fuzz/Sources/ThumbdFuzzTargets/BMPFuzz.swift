import BMPCodec
import ImageCore

/// BMP: thumbd's own reader: every header kind, masks, palettes, RLE4 and RLE8, embedded profiles.
enum BMPFuzz {
    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        _ = BMPCodec.sniff(data)
        _ = try? BMPCodec.embeddedColor(in: data)
        _ = try? BMPCodec.readInfo(data, limits: FuzzSupport.limits)
        _ = try? BMPCodec.decode(data, limits: FuzzSupport.limits, scale: .fullSize)
    }
}
