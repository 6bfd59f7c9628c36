import JXLCodec
import ImageCore

/// JPEG XL: the signature and container check, libjxl's header, colour encoding and first-frame decode.
enum JXLFuzz {
    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        _ = JXLCodec.sniff(data)
        _ = try? JXLCodec.embeddedColor(in: data)
        _ = try? JXLCodec.readInfo(data, limits: FuzzSupport.limits)
        _ = try? JXLCodec.decode(data, limits: FuzzSupport.limits, scale: .fullSize)
    }
}
