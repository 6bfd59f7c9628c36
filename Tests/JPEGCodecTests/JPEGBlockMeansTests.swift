import Foundation
import ImageCore
@testable import JPEGCodec
import Testing
import TestSupport

/// The photo at one pixel per 8x8 block, caught from libjpeg's inverse DCT: the mean of each block
/// of the full decode, and the very same bytes whatever scale (and whatever cut stream) decoded it.
struct JPEGBlockMeansTests {
    static let scales = [0.125, 0.25, 0.5, 1].map { DecodeScaleHint(minimumScale: $0) }

    static func blockMeans(_ data: [UInt8], _ scale: DecodeScaleHint) throws -> PixelBuffer? {
        try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: scale, keepingCMYK: false, blockMeans: true).blockMeans
    }

    /// The same block means at every scale; returns them.
    @discardableResult
    static func expectSameAtEveryScale(_ data: [UInt8], _ name: String) throws -> PixelBuffer {
        let eighth = try #require(try blockMeans(data, scales[0]), "\(name): no block means at 1/8")
        for scale in scales.dropFirst() {
            let other = try #require(try blockMeans(data, scale), "\(name): no block means at \(scale.minimumScale)")
            let differing = zip(eighth.pixels, other.pixels).filter { $0 != $1 }.count
            #expect(other.width == eighth.width && other.height == eighth.height && differing == 0,
                    "\(name): \(differing) bytes differ between 1/8 and \(scale.minimumScale)")
        }
        return eighth
    }

    /// Lightness, 0...255.
    static func luma(_ image: PixelBuffer, _ i: Int) -> Double {
        0.299 * Double(image.pixels[4 * i]) + 0.587 * Double(image.pixels[4 * i + 1]) + 0.114 * Double(image.pixels[4 * i + 2])
    }

    /// How far each block mean is from the mean lightness of its block in the full-size decode.
    static func lumaErrors(_ data: [UInt8], means: PixelBuffer) throws -> [Double] {
        let full = try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: .fullSize, keepingCMYK: false).pixels
        #expect(means.width == (full.width + 7) / 8 && means.height == (full.height + 7) / 8)
        var errors: [Double] = []
        for by in 0..<means.height {
            for bx in 0..<means.width {
                var sum = 0.0, count = 0.0
                for y in (8 * by)..<min(full.height, 8 * by + 8) {
                    for x in (8 * bx)..<min(full.width, 8 * bx + 8) { sum += luma(full, y * full.width + x); count += 1 }
                }
                errors.append(abs(sum / count - luma(means, by * means.width + bx)))
            }
        }
        return errors
    }

    @Test("Grey pixels, baseline and progressive: each block mean is its block's mean in the full decode, at every scale")
    func greyscale() throws {
        for progressive in [false, true] {
            var grey = SyntheticImage.gradient(width: 301, height: 203)
            for i in 0..<(grey.width * grey.height) {
                let y = UInt8(Self.luma(grey, i).rounded())
                (grey.pixels[4 * i], grey.pixels[4 * i + 1], grey.pixels[4 * i + 2]) = (y, y, y)
            }
            let data = try JPEGCodec.encode(grey, quality: 90, progressive: progressive)
            let means = try Self.expectSameAtEveryScale(data, "greyscale, progressive \(progressive)")
            // Only rounding and samples clamped at 0 or 255 part them; a block in the wrong place
            // would be tens of levels off.
            let errors = try Self.lumaErrors(data, means: means).sorted()
            #expect(errors[errors.count / 2] < 0.75 && errors.last! < 4, "median \(errors[errors.count / 2]), worst \(errors.last!)")
        }
    }

    @Test("Colour (4:2:0), baseline and progressive: the same bytes at every scale, block lightness within rounding of the full decode's")
    func colour() throws {
        for progressive in [false, true] {
            for (width, height) in [(640, 480), (301, 203)] {
                let data = try JPEGCodec.encode(SyntheticImage.gradient(width: width, height: height), quality: 90, progressive: progressive)
                let means = try Self.expectSameAtEveryScale(data, "\(width)x\(height), progressive \(progressive)")
                let errors = try Self.lumaErrors(data, means: means).sorted()
                #expect(errors[errors.count / 2] < 0.75 && errors.last! < 6,
                        "\(width)x\(height): median \(errors[errors.count / 2]), worst \(errors.last!)")
            }
        }
    }

    @Test("The corpus's JPEGs, baseline and progressive, every subsampling: the same block means at 1/8, 1/4, 1/2 and full size",
          .requires(CodecTestFiles.photos != nil, Comment(rawValue: CodecTestFiles.photosMissing)))
    func corpusPhotos() throws {
        let photos = try #require(CodecTestFiles.photos)
        let names = try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { $0.lowercased().hasSuffix(".jpg") }
        for name in names.sorted() {
            let data = [UInt8](try Data(contentsOf: photos.appendingPathComponent(name)))
            try Self.expectSameAtEveryScale(data, name)
        }
        #expect(names.count >= 20)
    }

    @Test func notAskedNoneKept() throws {
        let data = try JPEGCodec.encode(SyntheticImage.gradient(width: 64, height: 48), quality: 90, progressive: false)
        let decoded = try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: .fullSize, keepingCMYK: false)
        #expect(decoded.blockMeans == nil)
    }
}
