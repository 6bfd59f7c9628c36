import HEIFCodec
import ImageCore

/// HEIC: brand sniffing, thumbd's own box checks (top level, grid and overlay canvases), libheif's
/// parse, colour lookup and decode (libde265).
enum HEICFuzz {
    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        _ = HEIFCodec.sniff(data)
        _ = try? HEIFCodec.embeddedColor(in: data)
        _ = try? HEIFCodec.readInfo(data, limits: FuzzSupport.limits)
        _ = try? HEIFCodec.decode(data, limits: FuzzSupport.limits, scale: .fullSize)
    }
}
