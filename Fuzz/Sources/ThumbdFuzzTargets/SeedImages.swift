import AVIFCodec
import ImageCore
import JPEGCodec
import PNGCodec
import WebPCodec

/// Every format thumbd reads, encoded here from a small gradient: opaque and with alpha, baseline
/// and progressive JPEG, lossy and lossless WebP, AVIF, and each container with EXIF orientation 6.
enum SeedImages {
    static func gradient(width: Int, height: Int, alpha: Bool) -> PixelBuffer {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                pixels += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)), UInt8((x + y) * 4 & 0xFF),
                           alpha ? UInt8(255 - x * 200 / max(1, width - 1)) : 255]
            }
        }
        return PixelBuffer(width: width, height: height, hasAlpha: alpha, pixels: pixels)
    }

    static var all: [(name: String, bytes: [UInt8])] {
        let opaque = gradient(width: 24, height: 16, alpha: false)
        let clear = gradient(width: 17, height: 11, alpha: true)
        let made: [(String, [UInt8]?)] = [
            ("baseline.jpg", try? JPEGCodec.encode(opaque, quality: 80, progressive: false)),
            ("progressive.jpg", try? JPEGCodec.encode(opaque, quality: 60, progressive: true)),
            ("opaque.png", try? PNGCodec.encode(opaque)),
            ("alpha.png", try? PNGCodec.encode(clear)),
            ("lossy.webp", try? WebPCodec.encode(opaque, quality: 70)),
            ("lossy-alpha.webp", try? WebPCodec.encode(clear, quality: 70)),
            ("lossless.webp", try? WebPCodec.encode(clear, quality: nil)),
            ("opaque.avif", try? AVIFCodec.encode(opaque, quality: 50, speed: 10)),
            ("alpha.avif", try? AVIFCodec.encode(clear, quality: 50, speed: 10)),
            ("exif6.jpg", ExifContainers.jpeg(exif: SeedTexts.tiff(orientation: 6, bigEndian: false))),
            ("exif6.webp", ExifContainers.webp(exif: SeedTexts.tiff(orientation: 6, bigEndian: true))),
            ("exif6.png", ExifContainers.png(exif: SeedTexts.tiff(orientation: 6, bigEndian: true))),
        ]
        return made.compactMap { name, bytes in bytes.flatMap { $0.isEmpty ? nil : (name, $0) } }
    }
}
