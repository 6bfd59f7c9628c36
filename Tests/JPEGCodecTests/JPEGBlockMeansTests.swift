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

    /// A window's decode catches block means in the entropy decoder, which sees every block of a
    /// single-scan file, the rows and columns outside the window too: they must be the whole decode's,
    /// byte for byte. A file of several scans is decoded whole, its means caught as ever.
    @Test("Block means of a window's decode: the whole decode's, on every corpus JPEG at every scale")
    func windowsCatchTheWholeDecodesMeans() throws {
        let files = TestPaths.corpusJPEGs()
        try #require(files.count >= 20, "\(CodecTestFiles.photosMissing)")
        var windowed = 0, compared = 0
        for file in files {
            let data = try TestPaths.bytes(file)
            for scale in Self.scales {
                // Files the decoder refuses (12-bit, lossless, cut short) have no block means either way.
                guard let whole = try? JPEGDecoder.decode(data, limits: DecodeLimits(), scale: scale, keepingCMYK: false, blockMeans: true),
                      let wholeMeans = whole.blockMeans else { continue }
                let (w, h) = (whole.pixels.width, whole.pixels.height)
                let window = DecodeWindow(x: w / 3, y: h / 3, width: max(1, w / 3), height: max(1, h / 4))
                let part = try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: scale, keepingCMYK: false, blockMeans: true, window: window)
                compared += 1
                let label = "\(file.lastPathComponent) at \(scale.minimumScale)"
                if part.window != nil {
                    if part.pixels.width * part.pixels.height < w * h { windowed += 1 }
                    #expect(part.pixels.width <= w && part.pixels.height <= h, "\(label)")
                } else {
                    #expect(part.pixels.width == w && part.pixels.height == h, "\(label): decoded whole, so all of it")
                }
                let means = try #require(part.blockMeans, "\(label): no block means from the window")
                let same = means.width == wholeMeans.width && means.height == wholeMeans.height && means.pixels == wholeMeans.pixels
                #expect(same, "\(label): the window's block means differ from the whole decode's")
            }
        }
        // Most of the corpus is baseline (windowed); its progressive and non-interleaved files are not.
        #expect(compared >= 100 && windowed * 2 >= compared && windowed < compared, "\(windowed) of \(compared) decodes were windows")
    }

    /// A scan broken off by a marker (a restart marker where none belongs, or the end of the file):
    /// libjpeg warns and leaves every block after it undecoded, which the whole decode's inverse DCT
    /// reads with a DC of 0; so must the window's entropy decoder, for the rows libjpeg skips too.
    /// Or both refuse the file alike.
    @Test(arguments: [0.2, 0.5, 0.8], [false, true])
    func aBrokenScanGivesTheWholeDecodesMeans(_ at: Double, _ cut: Bool) throws {
        let full = try JPEGCodec.encode(SyntheticImage.gradient(width: 640, height: 960), quality: 90, progressive: false)
        let offset = Int(Double(full.count) * at)
        var broken = full
        if cut { broken = Array(full.prefix(offset)) + [0xFF, 0xD9] } else { (broken[offset], broken[offset + 1]) = (0xFF, 0xD0) }
        let window = DecodeWindow(x: 200, y: 400, width: 200, height: 160)
        let whole = Result { () throws(ImageError) in
            try JPEGDecoder.decode(broken, limits: DecodeLimits(), scale: .fullSize, keepingCMYK: false, blockMeans: true)
        }
        let part = Result { () throws(ImageError) in
            try JPEGDecoder.decode(broken, limits: DecodeLimits(), scale: .fullSize, keepingCMYK: false, blockMeans: true, window: window)
        }
        switch (whole, part) {
        case (.failure(let a), .failure(let b)):
            #expect(a.code == b.code)
            #expect(cut, "a stray restart marker is a warning, not a refusal")
        case (.success(let a), .success(let b)):
            #expect(b.window != nil)
            let same = a.blockMeans != nil && a.blockMeans?.pixels == b.blockMeans?.pixels
            #expect(same, "broken at \(at), cut \(cut)")
        default: Issue.record("broken at \(at), cut \(cut): whole \(whole), window \(part)")
        }
    }

    @Test func notAskedNoneKept() throws {
        let data = try JPEGCodec.encode(SyntheticImage.gradient(width: 64, height: 48), quality: 90, progressive: false)
        let decoded = try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: .fullSize, keepingCMYK: false)
        #expect(decoded.blockMeans == nil)
    }
}
