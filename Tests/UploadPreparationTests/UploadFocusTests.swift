import ImageCodecs
import ImageCore
import Testing
import TestSupport
import Thumbnailer
import UploadPreparation

/// A seller pins the product: `square` with a focus point keeps it, on a photo stored sideways.
struct UploadFocusTests {
    @Test func focusPinsTheProductInTheSquare() async throws {
        // Upright 900x600, a red box at the right; stored turned, as a phone writes it.
        let upright = BoxPicture.make(width: 900, height: 600, background: (240, 240, 240), box: (760, 240, 120, 140))
        let source = SourceImage(name: "p.jpg", bytes: try PhonePhoto.jpeg(upright: upright, orientation: .right))
        var settings = UploadSettings()
        settings.square = true
        settings.maxSide = 300
        func redShare(_ gravity: Gravity) async throws -> Double {
            settings.gravity = gravity
            let prepared = try await UploadPreparer.prepare([source], settings: settings,
                                                            run: { work in try await Task.detached { try work() }.value })
            let image = try ImageCodecs.decode(prepared[0].bytes).pixels
            #expect(image.width == 300 && image.height == 300)
            return BoxPicture.redShare(image)
        }
        // The square is 600 wide: centred it is x 150..750, missing the box; centred on x 0.88 it is
        // the right 600 px, holding the whole box.
        let pinned = try await redShare(.focus(try #require(FocusPoint(x: 0.88, y: 0.5))))
        #expect(pinned > 0.04 && pinned < 0.06, "\(pinned)")
        #expect(try await redShare(.center) == 0)
    }
}
