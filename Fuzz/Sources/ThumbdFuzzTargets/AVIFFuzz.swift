import AVIFCodec
import ImageCore

/// AVIF: brand sniffing, libavif's container parse (behind AVIFContainer's own checks), decode.
enum AVIFFuzz {
    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        _ = AVIFCodec.sniff(data)
        _ = AVIFCodec.iccProfile(in: data)
        _ = try? AVIFCodec.readInfo(data, limits: FuzzSupport.limits)
        _ = try? AVIFCodec.decode(data, limits: FuzzSupport.limits, scale: .fullSize)
    }
}
