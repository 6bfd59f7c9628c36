import Foundation
import ImageCore
import ImageQuality
import Testing
import TestSupport
@testable import JXLCodec

/// thumbd's JPEG XL output read back by djxl (the reference decoder) and compared with its source.
@Suite("JPEG XL encoding")
struct JXLEncodeTests {
    /// A photo-like synthetic picture: smooth light, a few soft discs, fine texture and a little noise.
    static func scene(width: Int, height: Int, seed: UInt64, alpha: Bool = false) -> PixelBuffer {
        var random = SeededRandom(seed: seed)
        let discs = (0..<6).map { _ in (x: Double(random.below(width)), y: Double(random.below(height)), r: Double(10 + random.below(max(11, width / 4))),
                                        c: (Double(random.below(256)), Double(random.below(256)), Double(random.below(256)))) }
        var image = PixelBuffer(width: width, height: height, hasAlpha: alpha)
        for y in 0..<height {
            for x in 0..<width {
                var rgb = (Double(x) / Double(width) * 180 + 40, Double(y) / Double(height) * 150 + 60, 120 + 60 * sin(Double(x + y) / 23))
                for disc in discs {
                    let d = ((Double(x) - disc.x) * (Double(x) - disc.x) + (Double(y) - disc.y) * (Double(y) - disc.y)).squareRoot()
                    let w = max(0, min(1, (disc.r - d) / 4))
                    rgb = (rgb.0 * (1 - w) + disc.c.0 * w, rgb.1 * (1 - w) + disc.c.1 * w, rgb.2 * (1 - w) + disc.c.2 * w)
                }
                // Fine detail a lossy coder has to keep (a soft weave), and no white noise, which no
                // coder keeps and SSIM punishes beyond what the eye sees.
                let texture = 6 * sin(Double(x) / 2.5) * sin(Double(y) / 3.5)
                let i = (y * width + x) * 4
                image.pixels[i] = UInt8(max(0, min(255, rgb.0 + texture)))
                image.pixels[i + 1] = UInt8(max(0, min(255, rgb.1 + texture)))
                image.pixels[i + 2] = UInt8(max(0, min(255, rgb.2 + texture)))
                if alpha { image.pixels[i + 3] = x < width / 5 ? 0 : UInt8(min(255, 80 + x * 255 / width)) }
            }
        }
        return image
    }

    @Test("quality maps to cjxl 0.7's butteraugli distances")
    func distances() {
        let expected: [(Int, Float)] = [(100, 0.1), (95, 0.55), (90, 1.0), (82, 1.72), (50, 4.6), (30, 6.4), (20, 7.4), (10, 12.65), (4, 25), (1, 25)]
        for (quality, distance) in expected {
            #expect(abs(JXLEncoder.distance(quality: quality) - distance) < 0.001, "\(quality): \(JXLEncoder.distance(quality: quality))")
        }
        // Lower quality, larger distance, down to libjxl's largest.
        let all = (5...100).map(JXLEncoder.distance(quality:))
        #expect(zip(all, all.dropFirst()).allSatisfy { $0 > $1 })
    }

    /// cjxl is the mapping's source: at the same quality it must code the same frame as thumbd's
    /// distance (cjxl's default effort 7, the same pixels from a PNG). cjxl's image header carries a
    /// few more metadata bits; the frame after it is the same, so the decoded pixels are identical.
    @Test("cjxl -q Q codes the same frame as thumbd's distance for Q", .requires(Tools.available, Comment(rawValue: Tools.missing ?? "")), arguments: [20, 50, 82, 95])
    func matchesCjxl(_ quality: Int) throws {
        let source = Self.scene(width: 96, height: 64, seed: 8)
        let folder = try JXLFiles.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("scene.png")
        try Tools.png(source, to: png)
        let cjxl = try Tools.cjxl(png, ["-q", "\(quality)"])
        let thumbd = try JXLCodec.encode(source, quality: quality, effort: 7)
        #expect(abs(cjxl.count - thumbd.count) <= 8, "quality \(quality): cjxl wrote \(cjxl.count) bytes, thumbd \(thumbd.count)")
        #expect(cjxl.suffix(thumbd.count - 8) == thumbd.suffix(thumbd.count - 8), "quality \(quality): the frames differ")
        let a = try JXLCodec.decode(cjxl, limits: DecodeLimits(), scale: .fullSize).pixels
        let b = try JXLCodec.decode(thumbd, limits: DecodeLimits(), scale: .fullSize).pixels
        #expect(a == b, "quality \(quality)")
    }

    @Test("a synthetic picture at quality 82: a bare codestream djxl reads, SSIM >= 0.97 against the source", .requires(Tools.available, Comment(rawValue: Tools.missing ?? "")))
    func syntheticRoundTrip() throws {
        let source = Self.scene(width: 300, height: 400, seed: 3)
        let data = try JXLCodec.encode(source, quality: 82, effort: 7)
        #expect(Array(data.prefix(2)) == [0xFF, 0x0A], "not a bare codestream")
        let info = try JXLCodec.readInfo(data, limits: DecodeLimits())
        #expect(info == ImageInfo(format: .jxl, width: 300, height: 400, hasAlpha: false))
        let reference = try Tools.djxl(data)
        // Luma SSIM, the usual single number: XYB spends few bits on blue detail, as the eye does,
        // so the blue plane's own SSIM is lower without being visible (0.88 here, luma 0.995).
        let ssim = SSIM.compare(reference.pixels, source)
        print("JXL encode 300x400 synthetic q82 e7: \(data.count) bytes, djxl's decode vs source SSIM \(ssim)")
        #expect(ssim >= 0.97)
        let decoded = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(Compare.maxDifference(decoded.pixels, reference.pixels) <= 1)
        #expect(decoded.color == .sRGB)
        // A low quality is visibly worse and smaller: the quality reaches the encoder.
        let low = try JXLCodec.encode(source, quality: 20, effort: 7)
        let lowSSIM = SSIM.compare(try JXLCodec.decode(low, limits: DecodeLimits(), scale: .fullSize).pixels, source)
        #expect(low.count < data.count / 2 && lowSSIM < ssim, "q20: \(low.count) bytes, SSIM \(lowSSIM)")
    }

    @Test("alpha is written only when some pixel is not opaque", .requires(Tools.available, Comment(rawValue: Tools.missing ?? "")))
    func alpha() throws {
        let transparent = Self.scene(width: 64, height: 48, seed: 5, alpha: true)
        let withAlpha = try JXLCodec.encode(transparent, quality: 90, effort: 5)
        #expect(try JXLCodec.readInfo(withAlpha, limits: DecodeLimits()).hasAlpha)
        let reference = try Tools.djxl(withAlpha).pixels
        #expect(reference.hasAlpha)
        // libjxl codes alpha lossily at lossy distances too: a few levels at hard edges (0 beside 127).
        let alphaError = stride(from: 3, to: transparent.pixels.count, by: 4).map { abs(Int(reference.pixels[$0]) - Int(transparent.pixels[$0])) }
        #expect(alphaError.max()! <= 4, "alpha error \(alphaError.max()!)")
        #expect(Double(alphaError.reduce(0, +)) / Double(alphaError.count) < 0.5)
        #expect(SSIM.compare(reference, transparent) >= 0.97)

        // Flagged as having alpha but every pixel opaque: written without it.
        var opaque = Self.scene(width: 64, height: 48, seed: 5)
        opaque.hasAlpha = true
        #expect(!(try JXLCodec.readInfo(try JXLCodec.encode(opaque, quality: 90, effort: 5), limits: DecodeLimits()).hasAlpha))
        // Not flagged: alpha bytes are not looked at.
        var unflagged = transparent
        unflagged.hasAlpha = false
        let written = try JXLCodec.encode(unflagged, quality: 90, effort: 5)
        #expect(!(try JXLCodec.readInfo(written, limits: DecodeLimits()).hasAlpha))
        #expect(try Tools.djxl(written).pixels.pixels[3] == 255)
    }

    @Test("quality outside 1...100 and effort outside 1...9 are invalid requests")
    func invalidSettings() {
        let image = Self.scene(width: 8, height: 8, seed: 1)
        for (quality, effort) in [(0, 7), (101, 7), (82, 0), (82, 10), (-5, 3)] {
            let error = #expect(throws: ImageError.self) { _ = try JXLCodec.encode(image, quality: quality, effort: effort) }
            #expect(error?.code == .invalidRequest, "\(quality), \(effort)")
        }
        #expect(throws: Never.self) { _ = try JXLCodec.encode(PixelBuffer(width: 1, height: 1), quality: 1, effort: 1) }
        #expect(throws: Never.self) { _ = try JXLCodec.encode(image, quality: 100, effort: 9) }
    }

    /// SSIM >= 0.97, or, on a detailed photo where JPEG itself stays near 0.97 at quality 82, within
    /// 0.015 of what Pillow's JPEG reaches at the same quality (thumbd's qualities mean "as faithful
    /// as a JPEG at q"). Measured on 25 photos' 300x400 thumbnails, the distance whose SSIM matches
    /// JPEG q82 has a median of 1.88; cjxl's mapping gives 1.72, a little more faithful.
    @Test("photo thumbnails at quality 82 read back with djxl at SSIM >= 0.97 (or JPEG q82's, less 0.015)", .requires(Tools.available, Comment(rawValue: Tools.missing ?? "")),
          .requires(JXLFiles.photos != nil, Comment(rawValue: JXLFiles.photosMissing)))
    func photoRoundTrip() throws {
        var passedOutright = 0
        for photo in JXLPhotoTests.photos {
            let source = try Tools.photoThumbnail(photo, width: 300, height: 400)
            let data = try JXLCodec.encode(source, quality: 82, effort: 7)
            let reference = try Tools.djxl(data)
            let ssim = SSIM.compare(reference.pixels, source)
            let jpeg = try Tools.pillowJPEG(source, quality: 82)
            let jpegSSIM = SSIM.compare(jpeg.pixels, source)
            print("JXL encode \(photo.lastPathComponent) 300x400 q82 e7: \(data.count) bytes, SSIM \(ssim); Pillow JPEG q82: \(jpeg.bytes) bytes, SSIM \(jpegSSIM)")
            #expect(ssim >= min(0.97, jpegSSIM - 0.015), "\(photo.lastPathComponent)")
            #expect(data.count < jpeg.bytes, "\(photo.lastPathComponent): JPEG XL should be smaller than JPEG at the same quality")
            if ssim >= 0.97 { passedOutright += 1 }
        }
        #expect(passedOutright >= 2)
    }

    /// Effort against time, size and fidelity, for the report (and the default): a 300x400
    /// thumbnail (a real photo when there is one) at quality 82, median of 3 encodes each.
    @Test("efforts 3, 5 and 7 at quality 82 on a 300x400 thumbnail: time, size, SSIM", .requires(Tools.available, Comment(rawValue: Tools.missing ?? "")))
    func effortTable() throws {
        let source: PixelBuffer
        let label: String
        if let photo = JXLPhotoTests.photos.first {
            source = try Tools.photoThumbnail(photo, width: 300, height: 400)
            label = photo.lastPathComponent
        } else {
            source = Self.scene(width: 300, height: 400, seed: 11)
            label = "synthetic"
        }
        var sizes: [Int] = []
        for effort in [3, 5, 7] {
            var times: [Double] = []
            var data: [UInt8] = []
            for _ in 0..<3 {
                let start = DispatchTime.now().uptimeNanoseconds
                data = try JXLCodec.encode(source, quality: 82, effort: effort)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            let ssim = SSIM.compare(try Tools.djxl(data).pixels, source)
            print(String(format: "JXL effort table (%@ %dx%d, q82): effort %d  %.1f ms  %d bytes  SSIM %.4f",
                         label, source.width, source.height, effort, times.sorted()[1], data.count, ssim))
            #expect(ssim >= 0.97, "effort \(effort)")
            sizes.append(data.count)
        }
        #expect(sizes[2] <= sizes[0] * 11 / 10, "effort 7 is not larger than effort 3 by much: \(sizes)")
    }
}
