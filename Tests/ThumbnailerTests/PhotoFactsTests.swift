import Foundation
import ImageCodecs
import ImageCore
import ImagePlaceholder
import Testing
import TestSupport
import Thumbnailer

/// What a thumbnail's making says of the whole photo: its displayed size and ThumbHash, right for
/// every EXIF orientation a phone writes.
struct PhotoFactsTests {
    @Test(arguments: Orientation.allCases)
    func uprightSizeAndPlaceholderForEveryOrientation(_ orientation: Orientation) throws {
        // 600x400 as the viewer sees it; stored turned as `orientation` says.
        let upright = PhonePhoto.synthetic(width: 600, height: 400, seed: 21)
        let photo = try PhonePhoto.jpeg(upright: upright, orientation: orientation)
        let rendered = try Thumbnailer.render(from: photo, ThumbnailRequest(size: 64, fit: .cover))
        #expect(rendered.photo.width == 600 && rendered.photo.height == 400, "\(orientation): \(rendered.photo)")
        let hash = try #require(rendered.photo.thumbHash)
        // Landscape whatever the storage: the hash carries the upright shape (in its steps).
        let carried = try #require(ThumbHash.aspectRatio(hash))
        #expect(carried > 1.2)
        // And its colours: the upright photo's own mean, within 6 levels. The reference is the
        // exact mean of the pixels, not a second hash, so only this hash's rounding counts.
        let got = try #require(ThumbHash.averageColor(hash))
        var sums = [0, 0, 0]
        for i in stride(from: 0, to: upright.pixels.count, by: 4) {
            for c in 0..<3 { sums[c] += Int(upright.pixels[i + c]) }
        }
        let count = upright.pixels.count / 4
        let wanted = sums.map { ($0 + count / 2) / count }
        #expect(abs(Int(got.r) - wanted[0]) <= 6 && abs(Int(got.g) - wanted[1]) <= 6 && abs(Int(got.b) - wanted[2]) <= 6,
                "\(orientation): \(got) against the mean \(wanted)")
    }

    /// Without a placeholder the thumbnail is the same, smart crops included (their small copy is
    /// still made when they are chosen on it), and no ThumbHash is made.
    @Test(arguments: [Gravity.center, .smart])
    func withoutAPlaceholderTheThumbnailIsTheSame(_ gravity: Gravity) throws {
        let photo = try PhonePhoto.jpeg(upright: PhonePhoto.synthetic(width: 600, height: 400, seed: 22), orientation: .right)
        let request = ThumbnailRequest(width: 120, height: 160, fit: .cover, gravity: gravity)
        let with = try Thumbnailer.render(from: photo, request)
        let without = try Thumbnailer.render(from: photo, request, placeholder: false)
        #expect(with.photo.thumbHash != nil)
        #expect(without.photo.thumbHash == nil)
        #expect(without.photo.width == 600 && without.photo.height == 400)
        #expect(without.crop == with.crop)
        #expect(without.pixels == with.pixels)
    }

    /// A JPEG of 800 px or more makes its placeholder from its block means (so its centre crops can
    /// decode a window): the hash must paint what a hash of the whole decoded photo paints. The
    /// reference is independent of the means: every pixel decoded at full size in sRGB, turned
    /// upright and area-averaged by ThumbHash's own fitting. Both previews are drawn and compared.
    @Test(.requires(CodecTestFiles.photos != nil, Comment(rawValue: CodecTestFiles.photosMissing)))
    func placeholderFromBlockMeansPaintsThePhoto() throws {
        let photos = try #require(CodecTestFiles.photos)
        let names = try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { $0.lowercased().hasSuffix(".jpg") }.sorted()
        var compared = 0
        for name in names {
            let data = try TestPaths.bytes(photos.appendingPathComponent(name))
            let rendered = try Thumbnailer.render(from: data, ThumbnailRequest(width: 300, height: 400, fit: .cover, gravity: .center))
            guard max(rendered.photo.width, rendered.photo.height) >= 800 else { continue }
            let hash = try #require(rendered.photo.thumbHash, "\(name)")
            let decoded = try ImageCodecs.decode(data)
            let upright = decoded.pixels.oriented(decoded.info.orientation)
            let reference = try #require(ThumbHash.encode(fitting: upright), "\(name)")
            let got = try #require(ThumbHash.averageColor(hash))
            let wanted = try #require(ThumbHash.averageColor(reference))
            let gaps: [Int] = [abs(Int(got.r) - Int(wanted.r)), abs(Int(got.g) - Int(wanted.g)), abs(Int(got.b) - Int(wanted.b))]
            let colourGap = gaps.max() ?? 0
            // The hash keeps its mean lightness in 6 bits (4 levels a step); a block mean converts and
            // clamps the block's average, where the pixels clamp one by one (saturated dark colours).
            #expect(colourGap <= 6, "\(name): average colour \(got) against \(wanted)")
            let (a, b) = (try #require(ThumbHash.decode(hash)), try #require(ThumbHash.decode(reference)))
            #expect(a.width == b.width && a.height == b.height, "\(name): preview \(a.width)x\(a.height) against \(b.width)x\(b.height)")
            guard a.width == b.width, a.height == b.height else { continue }
            let gap: [Int] = zip(a.pixels, b.pixels).map { pair in abs(Int(pair.0) - Int(pair.1)) }
            let mean = Double(gap.reduce(0, +)) / Double(gap.count)
            #expect(mean <= 3.5 && gap.max()! <= 24, "\(name): previews differ by \(mean) on average, \(gap.max()!) at most")
            compared += 1
        }
        #expect(compared >= 20, "\(compared) photos compared")
    }
}
