import Foundation
import ImageCodecs
import ImageCore
import Testing
import TestSupport
@testable import Thumbnailer

/// A JPEG's centre and focus crops decode only the window they read: without a placeholder (the
/// command line), and with one made from block means (the daemon, photos of 800 px and more).
/// Their thumbnails must be those of the whole decode, on every kind of JPEG: baseline and
/// progressive, every subsampling and orientation the corpora hold, greyscale, CMYK, restart markers.
struct DecodeWindowTests {
    static let requests: [ThumbnailRequest] = [
        ThumbnailRequest(width: 300, height: 400, fit: .cover, gravity: .center),
        ThumbnailRequest(width: 160, height: 90, fit: .cover, gravity: .center),
        ThumbnailRequest(width: 120, height: 120, fit: .cover, gravity: .focus(FocusPoint(x: 0.2, y: 0.8)!)),
        ThumbnailRequest(width: 40, height: 40, fit: .cover, gravity: .focus(FocusPoint(x: 0.9, y: 0.1)!)),
    ]

    @Test func everyCorpusJPEGsWindowedThumbnailIsTheWholeDecodesOne() throws {
        let files = TestPaths.corpusJPEGs()
        try #require(files.count >= 20, "\(CodecTestFiles.photosMissing)")
        var windowed = 0, windowedWithPlaceholder = 0, compared = 0
        for file in files {
            let data = try TestPaths.bytes(file)
            for request in Self.requests {
                // Files the decoder refuses (12-bit, lossless, cut short) have no thumbnail either way.
                guard let whole = try? Self.whole(data, request) else { continue }
                for placeholder in [false, true] {
                    let part = try Thumbnailer.render(from: data, request, placeholder: placeholder)
                    compared += 1
                    if part.decodedWidth * part.decodedHeight < whole.decodedWidth * whole.decodedHeight {
                        windowed += 1
                        if placeholder { windowedWithPlaceholder += 1 }
                    }
                    let label = "\(file.lastPathComponent) \(request.width)x\(request.height) \(request.gravity), placeholder \(placeholder)"
                    #expect(part.crop == whole.crop, "\(label)")
                    let same = part.pixels == whole.pixels
                    #expect(same, "\(label): \(Self.differences(part.pixels, whole.pixels))")
                    #expect((part.photo.thumbHash != nil) == placeholder, "\(label)")
                }
            }
        }
        // The windows are real: a crop that keeps most of the photo decodes it whole (its margins and
        // whole iMCUs would leave little out), the rest a window; with a placeholder too.
        #expect(compared >= 160 && windowed * 3 >= compared, "\(windowed) of \(compared) thumbnails decoded a window")
        #expect(windowedWithPlaceholder * 10 >= compared, "\(windowedWithPlaceholder) of \(compared / 2) with a placeholder")
    }

    /// The whole decode's thumbnail, placeholder and all: what every window is checked against.
    static func whole(_ data: [UInt8], _ request: ThumbnailRequest) throws(ImageError) -> RenderedThumbnail {
        try Thumbnailer.render(Thumbnailer.decode(data, for: [request], placeholder: true, windows: false), request)
    }

    /// Every EXIF orientation and a progressive file: the window is found in the stored image.
    @Test(arguments: Orientation.allCases)
    func everyOrientation(_ orientation: Orientation) throws {
        let upright = PhonePhoto.synthetic(width: 960, height: 640, seed: 23)
        try Self.expectWholeDecodesThumbnails(try PhonePhoto.jpeg(upright: upright, orientation: orientation), "\(orientation)")
    }

    @Test func progressive() throws {
        let data = try ImageCodecs.encode(PhonePhoto.synthetic(width: 1200, height: 800, seed: 24), .jpeg(quality: 88, progressive: true))
        // Its block means are caught by the inverse DCT, after all its scans: with a placeholder it is decoded whole.
        try Self.expectWholeDecodesThumbnails(data, "progressive", windowWithPlaceholder: false)
    }

    /// Each of `requests` from a window is the whole decode's thumbnail; the portrait crop of these
    /// landscape photos leaves out over a third of them.
    static func expectWholeDecodesThumbnails(_ data: [UInt8], _ label: String, windowWithPlaceholder: Bool = true) throws {
        for request in requests {
            let whole = try Self.whole(data, request)
            for placeholder in [false, true] {
                let part = try Thumbnailer.render(from: data, request, placeholder: placeholder)
                let partArea = part.decodedWidth * part.decodedHeight, wholeArea = whole.decodedWidth * whole.decodedHeight
                if !placeholder || windowWithPlaceholder {
                    if request.height > request.width { #expect(partArea * 3 < wholeArea * 2, "\(label), placeholder \(placeholder)") }
                } else {
                    #expect(partArea == wholeArea, "\(label): decoded whole")
                }
                let same = part.pixels == whole.pixels
                #expect(same, "\(label) \(request.width)x\(request.height), placeholder \(placeholder): \(differences(part.pixels, whole.pixels))")
            }
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
        let whole = try Self.whole(data, sizes[0])
        let alone = try Thumbnailer.render(Thumbnailer.decode(data, for: sizes, placeholder: true, windows: false), sizes[1])
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
        let whole = Result { () throws(ImageError) in try Self.whole(cut, request) }
        for placeholder in [false, true] {
            let part = Result { () throws(ImageError) in try Thumbnailer.render(from: cut, request, placeholder: placeholder) }
            switch (whole, part) {
            case (.success(let a), .success(let b)):
                #expect(b.decodedHeight < a.decodedHeight, "a square of a portrait photo leaves rows out")
                let same = a.pixels == b.pixels
                #expect(same, "kept \(kept), placeholder \(placeholder): \(Self.differences(b.pixels, a.pixels))")
            case (.failure(let a), .failure(let b)):
                #expect(a.code == b.code)
            default:
                Issue.record("kept \(kept), placeholder \(placeholder): whole \(whole), window \(part)")
            }
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
