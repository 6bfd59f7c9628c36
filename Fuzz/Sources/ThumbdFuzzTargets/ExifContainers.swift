import ImageCore
import JPEGCodec
import PNGCodec
import WebPCodec

/// Small valid images with given bytes in their EXIF place: a JPEG APP1 segment after SOI, a WebP
/// EXIF chunk in an extended (VP8X) container, a PNG eXIf chunk after IHDR.
enum ExifContainers {
    private static let pixels = PixelBuffer(width: 8, height: 8, hasAlpha: false,
                                            pixels: (0..<256).map { UInt8(truncatingIfNeeded: $0 * 7) })
    private static let plainJPEG = (try? JPEGCodec.encode(pixels, quality: 80, progressive: false)) ?? []
    private static let plainPNG = (try? PNGCodec.encode(pixels)) ?? []
    private static let plainWebP = (try? WebPCodec.encode(pixels, quality: nil)) ?? []
    static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
    /// An APP1 segment holds at most 65,533 bytes after its length.
    static let maxJPEGExif = 65_533 - 6

    /// Whether `jpeg(exif:)` keeps all of `exif` where the JPEG reader looks for orientation.
    static func jpegCarries(_ exif: [UInt8]) -> Bool {
        exif.count <= maxJPEGExif && exif.count + 6 > 14
    }

    static func jpeg(exif: [UInt8]) -> [UInt8] {
        guard plainJPEG.count > 2 else { return [] }
        let payload = exifHeader + exif.prefix(maxJPEGExif)
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + plainJPEG[2...]
    }

    static func webp(exif: [UInt8]) -> [UInt8] {
        // The lossless bitstream chunk of the plain file follows its 12-byte RIFF header.
        guard plainWebP.count > 20 else { return [] }
        let bitstream = Array(plainWebP[12...])
        var vp8x: [UInt8] = [0x08, 0, 0, 0]  // EXIF flag, reserved
        vp8x += le24(pixels.width - 1) + le24(pixels.height - 1)
        let body = Array("WEBP".utf8) + chunk("VP8X", vp8x) + bitstream + chunk("EXIF", exif)
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    static func png(exif: [UInt8]) -> [UInt8] {
        // Signature (8) and IHDR (4 + 4 + 13 + 4) come first.
        guard plainPNG.count > 33 else { return [] }
        let type = Array("eXIf".utf8)
        let crc = CRC32.checksum(type + exif)
        let eXIf = be32(exif.count) + type + exif + be32(Int(crc))
        return Array(plainPNG[..<33]) + eXIf + plainPNG[33...]
    }

    private static func chunk(_ fourcc: String, _ payload: [UInt8]) -> [UInt8] {
        Array(fourcc.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    private static func le24(_ value: Int) -> [UInt8] { (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    private static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    private static func be32(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}

/// CRC-32 as PNG chunks carry it (ISO 3309, reflected, polynomial 0xEDB88320).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
