import ImageCodecs
import ImageCore
import ImageOps
import ImageQuality
import Testing
import TestSupport
import ThumbVariant
import Thumbnailer

struct ThumbnailerTests {
    /// Output is exactly the size asked for, for odd sizes and extreme shapes, in both fits.
    @Test("exact output size", arguments: [(1, 4000), (4000, 1), (301, 200), (200, 301), (64, 64), (3, 5)], [1, 7, 199, 201])
    func exactSize(_ source: (Int, Int), _ size: Int) throws {
        let data = try ImageCodecs.encode(SyntheticImage.gradient(width: source.0, height: source.1), .png)
        let cover = try ThumbnailMaker().make(data, as: Variant(size: size, fit: .cover, format: .png))
        #expect(cover.width == size && cover.height == size)
        let decoded = try ImageCodecs.decode(cover.bytes)
        #expect(decoded.pixels.width == size && decoded.pixels.height == size)

        let contain = try ThumbnailMaker().make(data, as: Variant(size: size, fit: .contain, format: .png))
        let long = max(source.0, source.1), short = min(source.0, source.1)
        let expectedShort = max(1, Int((Double(size) * Double(short) / Double(long)).rounded()))
        let (w, h) = source.0 >= source.1 ? (size, expectedShort) : (expectedShort, size)
        #expect(contain.width == w && contain.height == h)
    }

    /// Transparent pixels must not darken the edge of an opaque shape (premultiplied resampling).
    @Test func noDarkFringeOnTransparentEdges() throws {
        var image = PixelBuffer(width: 400, height: 400, hasAlpha: true)
        for y in 0..<400 {
            for x in 0..<400 {
                let dx = Double(x) - 200, dy = Double(y) - 200
                let i = (y * 400 + x) * 4
                if dx * dx + dy * dy < 150 * 150 {
                    image.pixels[i] = 230; image.pixels[i + 1] = 40; image.pixels[i + 2] = 180; image.pixels[i + 3] = 255
                } else {
                    image.pixels[i] = 0; image.pixels[i + 1] = 0; image.pixels[i + 2] = 0; image.pixels[i + 3] = 0
                }
            }
        }
        let data = try ImageCodecs.encode(image, .png)
        let thumbnail = try ThumbnailMaker().make(data, as: Variant(size: 37, format: .png))
        let result = try ImageCodecs.decode(thumbnail.bytes).pixels
        var edgePixels = 0
        for y in 0..<result.height {
            for x in 0..<result.width {
                let p = result.pixel(x: x, y: y)
                guard p.a >= 8 else { continue }  // colour of nearly invisible pixels is quantised noise
                if p.a < 250 { edgePixels += 1 }
                #expect(abs(Int(p.r) - 230) <= 4 && abs(Int(p.g) - 40) <= 4 && abs(Int(p.b) - 180) <= 4,
                        "pixel (\(x), \(y)) alpha \(p.a) is (\(p.r), \(p.g), \(p.b))")
            }
        }
        #expect(edgePixels > 10, "the test needs partly transparent edge pixels")
    }

    @Test func autoFormatKeepsTransparency() throws {
        let opaque = try ImageCodecs.encode(SyntheticImage.gradient(width: 50, height: 40), .png)
        #expect(try ThumbnailMaker().make(opaque, as: Variant(size: 20)).format == .jpeg)
        var clear = PixelBuffer(width: 50, height: 40, hasAlpha: true)
        clear.pixels[3] = 0
        let transparent = try ImageCodecs.encode(clear, .png)
        #expect(try ThumbnailMaker().make(transparent, as: Variant(size: 20)).format == .png)
    }

    @Test func sizeOutOfRangeIsRefused() throws {
        let data = try ImageCodecs.encode(SyntheticImage.gradient(width: 10, height: 10), .png)
        #expect(throws: ImageError.self) { try Thumbnailer.render(from: data, ThumbnailRequest(size: 0)) }
        #expect(throws: ImageError.self) { try Thumbnailer.render(from: data, ThumbnailRequest(size: 5000)) }
    }
}

@Suite(.requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
struct OrientationTests {
    /// The 8 EXIF orientations of one photo give the same upright thumbnail.
    @Test("upright whatever the EXIF orientation", arguments: ["Landscape", "Portrait"], 2...8)
    func upright(_ set: String, _ orientation: Int) throws {
        let request = ThumbnailRequest(size: 200)
        let reference = try Thumbnailer.render(from: TestPaths.bytes(TestPaths.corpus("jpeg/exif-orientation/\(set)_1.jpg")!), request)
        let oriented = try Thumbnailer.render(from: TestPaths.bytes(TestPaths.corpus("jpeg/exif-orientation/\(set)_\(orientation).jpg")!), request)
        let ssim = SSIM.compare(reference.pixels, oriented.pixels)
        #expect(ssim >= 0.97, "SSIM \(ssim) against orientation 1")
    }

    /// A wrongly oriented thumbnail must fail the same check, or the test above proves nothing.
    @Test func ssimSeesAWrongOrientation() throws {
        let request = ThumbnailRequest(size: 200)
        let upright = try Thumbnailer.render(from: TestPaths.bytes(TestPaths.corpus("jpeg/exif-orientation/Landscape_1.jpg")!), request)
        #expect(SSIM.compare(upright.pixels, upright.pixels.oriented(.right)) < 0.9)
    }
}

/// HEIC in through the Thumbnailer: made by heif-enc from known pixels, the thumbnail matches the
/// source's, and the default encoding is never HEIC.
@Suite(.requires(HEIFEnc.available, Comment(rawValue: HEIFEnc.missing ?? "")))
struct HEICThumbnailTests {
    @Test func thumbnailOfAHEIC() throws {
        let photo = PhonePhoto.synthetic(width: 320, height: 240, seed: 9)
        let heic = try HEIFEnc.encode(photo)
        let thumbnail = try ThumbnailMaker().make(heic, as: Variant(size: 80, fit: .contain))
        #expect(thumbnail.source.format == .heic)
        #expect(thumbnail.format == .jpeg, "the default encoding for an opaque HEIC")
        #expect(thumbnail.width == 80 && thumbnail.height == 60)
        let reference = Resampler.resize(photo, width: 80, height: 60)
        let decoded = try ImageCodecs.decode(thumbnail.bytes).pixels
        let ssim = SSIM.compare(decoded, reference)
        #expect(ssim > 0.85, "SSIM \(ssim) against the source resized")
        #expect(Variant(size: 80).encoding(for: ImageInfo(format: .heic, width: 1, height: 1, hasAlpha: true)).format != .heic)
    }
}
