import ImageCodecs
import ImageCore
import ImageOps
import Testing
import TestSupport
@testable import Thumbnailer

/// The three fits in a box that is not square: what part of the photo each takes and where it lands.
struct BoxGeometryTests {
    @Test func containFitsTheLongerSideToTheBox() {
        let contain = ThumbnailGeometry(uprightWidth: 1000, uprightHeight: 500, width: 300, height: 400, fit: .contain)
        #expect((contain.outputWidth, contain.outputHeight) == (300, 150))
        #expect(contain.region == SourceRegion(x: 0, y: 0, width: 1000, height: 500))
        let tall = ThumbnailGeometry(uprightWidth: 500, uprightHeight: 1000, width: 400, height: 300, fit: .contain)
        #expect((tall.outputWidth, tall.outputHeight) == (150, 300))
    }

    /// Pad is contain on a canvas of the box: 1000x500 in 300x400 is a 300x150 photo with 125 rows
    /// of band above and below it.
    @Test func padCentresTheContainedPhoto() throws {
        let pad = ThumbnailGeometry(uprightWidth: 1000, uprightHeight: 500, width: 300, height: 400, fit: .pad)
        #expect((pad.outputWidth, pad.outputHeight) == (300, 150))

        let photo = BoxPicture.make(width: 1000, height: 500, background: (30, 30, 30), box: (0, 0, 1, 1))
        let rendered = try Thumbnailer.render(from: ImageCodecs.encode(photo, .png),
                                              ThumbnailRequest(width: 300, height: 400, fit: .pad, background: .white)).pixels
        #expect(rendered.width == 300 && rendered.height == 400)
        let photoRows = (0..<400).filter { y in (0..<300).contains { x in rendered.pixel(x: x, y: y) != (255, 255, 255, 255) } }
        #expect(photoRows.first == 125 && photoRows.last == 274, "the photo spans rows \(photoRows.first ?? -1)...\(photoRows.last ?? -1)")
    }

    /// A 3:4 cover of a landscape photo keeps its whole height and takes the middle of its width.
    @Test func coverOfAPortraitBoxKeepsTheFullHeight() {
        let cover = ThumbnailGeometry(uprightWidth: 1600, uprightHeight: 1000, width: 300, height: 400, fit: .cover)
        #expect((cover.outputWidth, cover.outputHeight) == (300, 400))
        #expect(cover.region == SourceRegion(x: 425, y: 0, width: 750, height: 1000))
        let wide = ThumbnailGeometry(uprightWidth: 1000, uprightHeight: 1600, width: 320, height: 180, fit: .cover)
        #expect(wide.region.width == 1000 && abs(wide.region.height - 562.5) < 1e-9 && abs(wide.region.y - 518.75) < 1e-9)
    }

    /// The smart crop moves a window of the box's shape: the thumbnail is exactly the box, and the
    /// window has the box's shape and lies inside the photo.
    @Test("smart cover is exactly the box", arguments: [(240, 320), (320, 180)])
    func smartCoverHasTheBoxSize(_ box: (Int, Int)) throws {
        let photo = BoxPicture.make(width: 1200, height: 800, background: (240, 240, 240), box: (x: 850, y: 150, width: 200, height: 300))
        let rendered = try Thumbnailer.render(from: ImageCodecs.encode(photo, .jpeg(quality: 90)),
                                              ThumbnailRequest(width: box.0, height: box.1, fit: .cover, gravity: .smart))
        #expect(rendered.pixels.width == box.0 && rendered.pixels.height == box.1)
        let crop = rendered.crop
        #expect(abs(crop.width / crop.height - Double(box.0) / Double(box.1)) < 1e-6, "the window \(crop) is not the box's shape")
        #expect(crop.x >= 0 && crop.y >= 0 && crop.x + crop.width <= 1200 + 1e-9 && crop.y + crop.height <= 800 + 1e-9, "the window \(crop) leaves the photo")
    }
}
