import Foundation
import ImageCodecs
import ImageCore
import Testing
import TestSupport
import Thumbnailer

/// Without a placeholder, a JPEG's centre and focus crops decode only the window they read. Their
/// thumbnails must be those of the whole decode, on every kind of JPEG: baseline and progressive,
/// every subsampling and orientation the corpora hold, greyscale, CMYK, restart markers.
struct DecodeWindowTests {
    static let requests: [ThumbnailRequest] = [
        ThumbnailRequest(width: 300, height: 400, fit: .cover, gravity: .center),
        ThumbnailRequest(width: 160, height: 90, fit: .cover, gravity: .center),
        ThumbnailRequest(width: 120, height: 120, fit: .cover, gravity: .focus(FocusPoint(x: 0.2, y: 0.8)!)),
        ThumbnailRequest(width: 40, height: 40, fit: .cover, gravity: .focus(FocusPoint(x: 0.9, y: 0.1)!)),
    ]

    static func corpusJPEGs() -> [URL] {
        ["photos", "jpeg/exif-orientation", "jpeg/jpeg-decoder", "jpeg/libjpeg-turbo", "jpeg/pillow", "jpeg/mozilla"].flatMap { folder -> [URL] in
            guard let url = TestPaths.corpus(folder),
                  let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return [] }
            return names.filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }.sorted()
                .map { url.appendingPathComponent($0) }
        }
    }

    @Test func everyCorpusJPEGsWindowedThumbnailIsTheWholeDecodesOne() throws {
        let files = Self.corpusJPEGs()
        try #require(files.count >= 20, "\(CodecTestFiles.photosMissing)")
        var windowed = 0, compared = 0
        for file in files {
            let data = try TestPaths.bytes(file)
            for request in Self.requests {
                // Files the decoder refuses (12-bit, lossless, cut short) have no thumbnail either way.
                guard let whole = try? Thumbnailer.render(from: data, request) else { continue }
                let part = try Thumbnailer.render(from: data, request, placeholder: false)
                compared += 1
                if part.decodedWidth * part.decodedHeight < whole.decodedWidth * whole.decodedHeight { windowed += 1 }
                #expect(part.crop == whole.crop, "\(file.lastPathComponent) \(request.width)x\(request.height)")
                let same = part.pixels == whole.pixels
                #expect(same,
                        "\(file.lastPathComponent) \(request.width)x\(request.height) \(request.gravity): \(Self.differences(part.pixels, whole.pixels))")
            }
        }
        // The windows are real: a crop that keeps most of the photo decodes it whole (its margins and
        // whole iMCUs would leave little out), the rest a window.
        #expect(compared >= 80 && windowed * 3 >= compared, "\(windowed) of \(compared) thumbnails decoded a window")
    }

    /// Every EXIF orientation and a progressive file: the window is found in the stored image.
    @Test(arguments: Orientation.allCases)
    func everyOrientation(_ orientation: Orientation) throws {
        let upright = PhonePhoto.synthetic(width: 960, height: 640, seed: 23)
        try Self.expectWholeDecodesThumbnails(try PhonePhoto.jpeg(upright: upright, orientation: orientation), "\(orientation)")
    }

    @Test func progressive() throws {
        let data = try ImageCodecs.encode(PhonePhoto.synthetic(width: 1200, height: 800, seed: 24), .jpeg(quality: 88, progressive: true))
        try Self.expectWholeDecodesThumbnails(data, "progressive")
    }

    /// Each of `requests` from a window is the whole decode's thumbnail; the portrait crop of these
    /// landscape photos leaves out over a third of them.
    static func expectWholeDecodesThumbnails(_ data: [UInt8], _ label: String) throws {
        for request in requests {
            let whole = try Thumbnailer.render(from: data, request)
            let part = try Thumbnailer.render(from: data, request, placeholder: false)
            if request.height > request.width {
                #expect(part.decodedWidth * part.decodedHeight * 3 < whole.decodedWidth * whole.decodedHeight * 2, "\(label)")
            }
            let same = part.pixels == whole.pixels
            #expect(same, "\(label) \(request.width)x\(request.height): \(differences(part.pixels, whole.pixels))")
        }
    }

    /// Several sizes decoded once: the window holds all their crops, and each comes out as alone.
    @Test func severalSizesShareOneWindow() throws {
        let data = try ImageCodecs.encode(PhonePhoto.synthetic(width: 1600, height: 1000, seed: 25), .jpeg(quality: 85))
        let sizes = [ThumbnailRequest(width: 600, height: 800, fit: .cover), ThumbnailRequest(width: 150, height: 200, fit: .cover)]
        let photo = try Thumbnailer.decode(data, for: sizes, placeholder: false)
        #expect(photo.decodedWidth < 1600)
        #expect(photo.serves(sizes[1]))
        #expect(!photo.serves(ThumbnailRequest(width: 200, height: 100, fit: .cover)), "a wider crop reads outside the window")
        #expect(!photo.serves(ThumbnailRequest(width: 150, height: 200, fit: .cover, gravity: .smart)))
        // Asked anyway, a crop outside the window is refused, never read from pixels not decoded.
        #expect(throws: ImageError.self) { try Thumbnailer.render(photo, ThumbnailRequest(width: 200, height: 100, fit: .cover)) }
        let shared = try Thumbnailer.render(photo, sizes[1])
        let whole = try Thumbnailer.render(from: data, sizes[0])
        let alone = try Thumbnailer.render(Thumbnailer.decode(data, for: sizes), sizes[1])
        #expect(whole.pixels.width == 600)
        let same = shared.pixels == alone.pixels
        #expect(same, "\(Self.differences(shared.pixels, alone.pixels))")
    }

    /// A scan cut short (the data ends, then an EOI) above, inside or below the window: the window
    /// decode answers as the whole decode does, with the same pixels or the same error, since the
    /// rows under the window are still entropy-decoded.
    @Test(arguments: [0.3, 0.6, 0.9])
    func aScanCutShortIsAnsweredAsTheWholeDecodeAnswersIt(_ kept: Double) throws {
        let full = try ImageCodecs.encode(PhonePhoto.synthetic(width: 480, height: 960, seed: 26), .jpeg(quality: 90))
        let cut = Array(full.prefix(Int(Double(full.count) * kept))) + [0xFF, 0xD9]
        let request = ThumbnailRequest(width: 120, height: 120, fit: .cover, gravity: .center)
        let whole = Result { () throws(ImageError) in try Thumbnailer.render(from: cut, request) }
        let part = Result { () throws(ImageError) in try Thumbnailer.render(from: cut, request, placeholder: false) }
        switch (whole, part) {
        case (.success(let a), .success(let b)):
            #expect(b.decodedHeight < a.decodedHeight, "a square of a portrait photo leaves rows out")
            let same = a.pixels == b.pixels
            #expect(same, "kept \(kept): \(Self.differences(b.pixels, a.pixels))")
        case (.failure(let a), .failure(let b)):
            #expect(a.code == b.code)
        default:
            Issue.record("kept \(kept): whole \(whole), window \(part)")
        }
    }

    static func differences(_ a: PixelBuffer, _ b: PixelBuffer) -> String {
        guard a.width == b.width, a.height == b.height else { return "\(a.width)x\(a.height) against \(b.width)x\(b.height)" }
        var count = 0, largest = 0
        for (x, y) in zip(a.pixels, b.pixels) where x != y {
            count += 1
            largest = max(largest, abs(Int(x) - Int(y)))
        }
        return "\(count) bytes differ, by at most \(largest)"
    }
}
