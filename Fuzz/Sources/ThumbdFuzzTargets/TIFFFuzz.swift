import TIFFCodec
import ImageCore

/// TIFF: the header and first directory check, libtiff's directory read, strip and tile geometry, sample unpacking and conversion.
enum TIFFFuzz {
    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        _ = TIFFCodec.sniff(data)
        _ = try? TIFFCodec.embeddedColor(in: data)
        _ = try? TIFFCodec.readInfo(data, limits: FuzzSupport.limits)
        _ = try? TIFFCodec.decode(data, limits: FuzzSupport.limits, scale: .fullSize)
    }
}
