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
        // And its colours: the upright photo's average, within what the hash keeps. It stores the
        // averages of luma and the two chroma planes in 64 levels each, and one level of all
        // three moves a channel by up to 255 * (1/63 + 1/94.5 + 1/63) = 10.8.
        let got = try #require(ThumbHash.averageColor(hash))
        let uprightHash = try #require(ThumbHash.encode(fitting: upright))
        let wanted = try #require(ThumbHash.averageColor(uprightHash))
        #expect(abs(Int(got.r) - Int(wanted.r)) <= 11 && abs(Int(got.g) - Int(wanted.g)) <= 11 && abs(Int(got.b) - Int(wanted.b)) <= 11, "\(orientation): \(got) against \(wanted)")
    }
}
