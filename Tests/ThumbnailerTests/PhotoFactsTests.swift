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
}
