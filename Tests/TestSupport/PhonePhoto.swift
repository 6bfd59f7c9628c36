import Foundation
import ImageCodecs
import ImageCore
import ImageOps

/// Photos as a phone writes them, for the upload-preparation tests and benchmark: large, stored
/// sideways with an EXIF orientation, carrying camera facts, a GPS position, XMP and a comment.
public enum PhonePhoto {
    /// Camera make written into the EXIF: a prepared image must not contain it.
    public static let cameraMake = "ThumbdTestPhone"
    public static let comment = "thumbd test comment"
    public static let xmpMarker = "http://ns.adobe.com/xap/1.0/"

    /// `upright` stored turned so that `orientation` stands it up again, with every kind of metadata.
    public static func jpeg(upright: PixelBuffer, orientation: Orientation, quality: Int = 92) throws -> [UInt8] {
        let stored = upright.oriented(orientation.inverse)
        let plain = try ImageCodecs.encode(stored, .jpeg(quality: quality))
        return insertingAfterSOI(plain, segments: [
            segment(marker: 0xE1, payload: Array("Exif\0\0".utf8) + exifTIFF(orientation: orientation)),
            segment(marker: 0xE1, payload: Array((xmpMarker + "\0").utf8) + Array("<x:xmpmeta>thumbd</x:xmpmeta>".utf8)),
            segment(marker: 0xFE, payload: Array(comment.utf8)),
        ])
    }

    /// `image` enlarged (or reduced) to 12 megapixels, its shape kept: 4000x3000 for 4:3.
    public static func twelveMegapixel(_ image: PixelBuffer) -> PixelBuffer {
        let scale = (12_000_000 / Double(image.width * image.height)).squareRoot()
        return Resampler.resize(image, width: Int((Double(image.width) * scale).rounded()), height: Int((Double(image.height) * scale).rounded()))
    }

    /// A picture with photo-like detail that needs no corpus: gradients under seeded noise, so it
    /// compresses like a busy photo rather than like flat colour.
    public static func synthetic(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var random = SeededRandom(seed: seed)
        var image = PixelBuffer(width: width, height: height)
        image.pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    let noise = Int(random.next() & 0x3F) - 32
                    p[i] = UInt8(clamping: x * 200 / width + noise)
                    p[i + 1] = UInt8(clamping: y * 200 / height + noise)
                    p[i + 2] = UInt8(clamping: (x / 16 + y / 16) % 2 * 120 + 40 + noise)
                }
            }
        }
        return image
    }

    /// Markers in file order (0xE1 for APP1, 0xFE for COM …), read independently of thumbd's codec.
    public static func markers(_ jpeg: [UInt8]) -> [UInt8] {
        var found: [UInt8] = []
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF {
            let marker = jpeg[at + 1]
            found.append(marker)
            if marker == 0xDA || marker == 0xD9 { break }
            at += 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3]))
        }
        return found
    }

    public static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard needle.count <= bytes.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    private static func segment(marker: UInt8, payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    private static func insertingAfterSOI(_ jpeg: [UInt8], segments: [[UInt8]]) -> [UInt8] {
        Array(jpeg[0..<2]) + segments.flatMap { $0 } + Array(jpeg[2...])
    }

    /// A little-endian TIFF with IFD0 (Make, Orientation, GPS pointer) and a GPS IFD (latitude and
    /// longitude), as cameras write it.
    static func exifTIFF(orientation: Orientation) -> [UInt8] {
        var out: [UInt8] = []
        func u16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) { u16(v & 0xFFFF); u16(v >> 16) }
        let make = Array((cameraMake + "\0").utf8)
        // Layout: header 8 | IFD0 (3 entries) 2+36+4 | GPS IFD (4 entries) 2+48+4 | make | 2 x 3 rationals.
        let ifd0 = 8, gpsIFD = ifd0 + 2 + 3 * 12 + 4
        let makeAt = gpsIFD + 2 + 4 * 12 + 4
        let latitudeAt = makeAt + make.count, longitudeAt = latitudeAt + 24
        out += Array("II".utf8); u16(42); u32(ifd0)
        u16(3)
        u16(0x010F); u16(2); u32(make.count); u32(makeAt)
        u16(0x0112); u16(3); u32(1); u16(Int(orientation.rawValue)); u16(0)
        u16(0x8825); u16(4); u32(1); u32(gpsIFD)
        u32(0)
        u16(4)
        u16(0x0001); u16(2); u32(2); out += Array("N\0\0\0".utf8)
        u16(0x0002); u16(5); u32(3); u32(latitudeAt)
        u16(0x0003); u16(2); u32(2); out += Array("E\0\0\0".utf8)
        u16(0x0004); u16(5); u32(3); u32(longitudeAt)
        u32(0)
        out += make
        for (degrees, minutes) in [(37, 33), (126, 58)] { u32(degrees); u32(1); u32(minutes); u32(1); u32(0); u32(1) }
        return out
    }
}
