import ImageCore
import PNGCodec
import Testing
import TestSupport

/// Decoding the synthetic images in TestImages/png. The expected pixels come from the formulas in
/// Scripts/png_reference.py, recomputed here (not from any decoder's output).
@Suite("PNG decode")
struct PNGDecodeTests {
    static func gradient(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let r = (x * 255) / 100, g = (y * 255) / 66, b = (x * 7 + y * 13) % 256
        let a = (x / 10 + y / 10) % 5 == 0 ? 0 : min(255, 40 + (x + y) * 2)
        return (UInt8(r), UInt8(g), UInt8(b), UInt8(a))
    }

    static func interlacedRGB(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        (UInt8((x * 5 + y) % 256), UInt8((y * 9) % 256), UInt8((x * y) % 256))
    }

    static func decode(_ name: String, scale: DecodeScaleHint = .fullSize) throws -> DecodedImage {
        try PNGCodec.decode(try PNGTestSupport.testImage(name), limits: DecodeLimits(), scale: scale)
    }

    @Test("8-bit RGBA decodes to the stored values, alpha not premultiplied")
    func rgba8() throws {
        let image = try Self.decode("gradient-rgba8.png")
        #expect(image.pixels.width == 101 && image.pixels.height == 67)
        #expect(image.info.hasAlpha && image.pixels.hasAlpha)
        for y in 0..<67 {
            for x in 0..<101 {
                let p = image.pixels.pixel(x: x, y: y)
                let e = Self.gradient(x, y)
                guard p == e else {
                    Issue.record("(\(x),\(y)) is \(p), expected \(e)")
                    return
                }
            }
        }
    }

    @Test("16-bit grey keeps the high byte, copied to R, G and B, opaque")
    func grey16() throws {
        let image = try Self.decode("grey16.png")
        #expect(image.pixels.width == 37 && image.pixels.height == 23)
        #expect(!image.info.hasAlpha && !image.pixels.hasAlpha)
        var mismatches = 0
        for y in 0..<23 {
            for x in 0..<37 {
                let v = UInt8(((x * 1777 + y * 2851 + 5) & 0xFFFF) >> 8)
                if image.pixels.pixel(x: x, y: y) != (v, v, v, 255) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("16-bit RGBA keeps the high byte of every channel")
    func rgba16() throws {
        let image = try Self.decode("rgba16.png")
        #expect(image.info.hasAlpha)
        var mismatches = 0
        for y in 0..<13 {
            for x in 0..<19 {
                let e = (UInt8(((x * 3433) & 0xFFFF) >> 8), UInt8(((y * 4999) & 0xFFFF) >> 8),
                         UInt8((((x + y) * 2039) & 0xFFFF) >> 8), UInt8(((65535 - x * 911 - y * 577) & 0xFFFF) >> 8))
                if image.pixels.pixel(x: x, y: y) != e { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("4-bit palette with a short tRNS: per-entry alpha, entries past tRNS opaque")
    func paletteTRNS() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (10, 20, 30), (200, 100, 50)]
        let alpha: [UInt8] = [255, 0, 128, 64, 255, 255]
        let image = try Self.decode("palette-trns.png")
        #expect(image.info.hasAlpha)
        var mismatches = 0
        for y in 0..<17 {
            for x in 0..<23 {
                let i = (x + 2 * y) % palette.count
                if image.pixels.pixel(x: x, y: y) != (palette[i].0, palette[i].1, palette[i].2, alpha[i]) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("Adam7 interlaced RGB decodes whole, and a scale hint leaves it full size")
    func interlaced() throws {
        for scale in [DecodeScaleHint.fullSize, DecodeScaleHint(minimumScale: 0.25)] {
            let image = try Self.decode("interlaced-rgb.png", scale: scale)
            #expect(image.pixels.width == 45 && image.pixels.height == 31)
            var mismatches = 0
            for y in 0..<31 {
                for x in 0..<45 {
                    let e = Self.interlacedRGB(x, y)
                    if image.pixels.pixel(x: x, y: y) != (e.0, e.1, e.2, 255) { mismatches += 1 }
                }
            }
            #expect(mismatches == 0)
        }
    }

    @Test("orientation comes from the eXIf chunk")
    func exifOrientation() throws {
        let data = try PNGTestSupport.testImage("exif-orientation6.png")
        #expect(PNGTestSupport.chunkTypes(data).contains("eXIf"))
        let info = try PNGCodec.readInfo(data)
        #expect(info.orientation == .right)
        #expect(info.width == 16 && info.height == 8)
        let image = try PNGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(image.info.orientation == .right)
        #expect(image.pixels.width == 16, "pixels stay in stored orientation")
        // Files without eXIf are upright.
        #expect(try PNGCodec.readInfo(try PNGTestSupport.testImage("grey16.png")).orientation == .up)
    }

    @Test("a PNG cut in half is truncated_image, on both decode paths")
    func truncated() throws {
        let whole = try PNGTestSupport.testImage("gradient-rgba8.png")
        let half = Array(whole.prefix(whole.count / 2))
        for scale in [DecodeScaleHint.fullSize, DecodeScaleHint(minimumScale: 0.5)] {
            let error = PNGTestSupport.error { () throws(ImageError) in
                try PNGCodec.decode(half, limits: DecodeLimits(), scale: scale)
            }
            #expect(error?.code == .truncatedImage, "\(String(describing: error))")
            #expect(error?.message == "PNG data ends early (truncated file)")
        }
        // The header alone still reads; a cut inside the signature or IHDR does not.
        #expect(try PNGCodec.readInfo(half).width == 101)
        for length in [0, 4, 8, 20, 32] {
            let error = PNGTestSupport.error { () throws(ImageError) in try PNGCodec.readInfo(Array(whole.prefix(length))) }
            #expect(error?.code == .truncatedImage, "cut at \(length): \(String(describing: error))")
        }
        // Everything but IEND: every pixel is there, but the file still ends early.
        let noEnd = Array(whole.dropLast(12))
        let error = PNGTestSupport.error { () throws(ImageError) in
            try PNGCodec.decode(noEnd, limits: DecodeLimits(), scale: .fullSize)
        }
        #expect(error?.code == .truncatedImage)
    }

    @Test("the pixel limit and the memory limit refuse before decoding")
    func limits() throws {
        let data = try PNGTestSupport.testImage("gradient-rgba8.png")  // 101 x 67 = 6767 px
        let pixels = PNGTestSupport.error { () throws(ImageError) in
            try PNGCodec.decode(data, limits: DecodeLimits(maxPixels: 6766), scale: .fullSize)
        }
        #expect(pixels?.code == .pixelLimitExceeded)
        #expect(try PNGCodec.decode(data, limits: DecodeLimits(maxPixels: 6767), scale: .fullSize).pixels.width == 101)

        // Full size needs the 27 KB image plus libpng's ~64 KiB allowance: over an 80 KB budget.
        let memory = PNGTestSupport.error { () throws(ImageError) in
            try PNGCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: 80_000), scale: .fullSize)
        }
        #expect(memory?.code == .pixelLimitExceeded)
        // A reduced decode holds only the small image and one row, so the same budget lets it through.
        let small = try PNGCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: 80_000), scale: DecodeScaleHint(minimumScale: 0.25))
        #expect(small.pixels.width == 26)
    }

    @Test("a scale hint of 0.5 or less box-reduces by floor(1/scale)",
          arguments: [(0.5, 2), (0.34, 2), (0.3333, 3), (0.25, 4), (0.2, 5), (0.1, 10), (0.03, 33)])
    func reducedSize(_ scale: Double, _ factor: Int) throws {
        let full = try Self.decode("gradient-rgba8.png")
        let image = try Self.decode("gradient-rgba8.png", scale: DecodeScaleHint(minimumScale: scale))
        let expectedWidth = (101 + factor - 1) / factor, expectedHeight = (67 + factor - 1) / factor
        #expect(image.pixels.width == expectedWidth && image.pixels.height == expectedHeight)
        #expect(Double(image.pixels.width) >= scale * 101 && Double(image.pixels.height) >= scale * 67)
        #expect(image.info.width == 101 && image.info.height == 67, "info describes the file")
        #expect(image.pixels.hasAlpha)
        let reference = PNGTestSupport.boxReduce(full.pixels, factor: factor)
        #expect(PNGTestSupport.maxDifference(image.pixels, reference) <= 1)
    }

    @Test("hints above 0.5 decode at full size; a hint of 0 still gives at least one pixel")
    func scaleEdges() throws {
        for scale in [1.0, 0.9, 0.51] {
            let image = try Self.decode("gradient-rgba8.png", scale: DecodeScaleHint(minimumScale: scale))
            #expect(image.pixels.width == 101 && image.pixels.height == 67)
        }
        let tiny = try Self.decode("gradient-rgba8.png", scale: DecodeScaleHint(minimumScale: 0))
        #expect(tiny.pixels.width == 1 && tiny.pixels.height == 1)
        // Opaque images take the unweighted path and stay opaque.
        let grey = try Self.decode("grey16.png", scale: DecodeScaleHint(minimumScale: 0.5))
        let greyFull = try Self.decode("grey16.png")
        #expect(grey.pixels.width == 19 && grey.pixels.height == 12)
        #expect(PNGTestSupport.maxDifference(grey.pixels, PNGTestSupport.boxReduce(greyFull.pixels, factor: 2)) <= 1)
        #expect(stride(from: 3, to: grey.pixels.pixels.count, by: 4).allSatisfy { grey.pixels.pixels[$0] == 255 })
    }

    @Test("reduction weights colour by alpha: transparent black does not darken an edge")
    func alphaWeightedReduction() throws {
        // Columns alternate opaque red and fully transparent black; 2x2 blocks hold two of each.
        var source = PixelBuffer(width: 8, height: 6, hasAlpha: true)
        for y in 0..<6 {
            for x in stride(from: 0, to: 8, by: 2) {
                let i = (y * 8 + x) * 4
                source.pixels[i] = 255; source.pixels[i + 3] = 255
            }
        }
        let data = try PNGCodec.encode(source)
        let image = try PNGCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.5))
        #expect(image.pixels.width == 4 && image.pixels.height == 3)
        for y in 0..<3 {
            for x in 0..<4 { #expect(image.pixels.pixel(x: x, y: y) == (255, 0, 0, 128)) }
        }
        // 3x3 blocks over a 8x6 image: the last column of blocks is 2 wide and averages what it has.
        let thirds = try PNGCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.3))
        #expect(thirds.pixels.width == 3 && thirds.pixels.height == 2)
        #expect(thirds.pixels.pixel(x: 0, y: 0) == (255, 0, 0, 170))  // 2 of 3 columns opaque
        #expect(thirds.pixels.pixel(x: 1, y: 0) == (255, 0, 0, 85))   // 1 of 3
        #expect(thirds.pixels.pixel(x: 2, y: 0) == (255, 0, 0, 128))  // 1 of 2
    }

    @Test("a PNG with APNG animation control is flagged as animated")
    func animated() throws {
        var data = try PNGTestSupport.testImage("grey16.png")
        #expect(try PNGCodec.readInfo(data).isAnimated == false)
        // Insert an acTL chunk (8 bytes: frames, plays; CRC left wrong: libpng skips it with a warning).
        let acTL: [UInt8] = [0, 0, 0, 8] + Array("acTL".utf8) + [0, 0, 0, 2, 0, 0, 0, 0] + [0, 0, 0, 0]
        data.insert(contentsOf: acTL, at: 33)  // after signature (8) and IHDR (25)
        let info = try PNGCodec.readInfo(data)
        #expect(info.isAnimated)
        #expect(try PNGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize).pixels.width == 37)
    }
}
