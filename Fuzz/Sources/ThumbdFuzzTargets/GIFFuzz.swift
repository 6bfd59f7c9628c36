import GIFCodec
import ImageCore

/// GIF: the screen check, giflib's record walk to the first frame, the frame's limits and LZW decode, compositing.
enum GIFFuzz {
    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        _ = GIFCodec.sniff(data)
        _ = try? GIFCodec.embeddedColor(in: data)
        _ = try? GIFCodec.readInfo(data, limits: FuzzSupport.limits)
        _ = try? GIFCodec.decode(data, limits: FuzzSupport.limits, scale: .fullSize)
    }
}
