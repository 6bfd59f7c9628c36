import CropScenes
import Foundation
import ImageCodecs
import ImageCore
@testable import ImageOps
import Testing
import TestSupport
import ThumbVariant
import Thumbnailer

/// The smart crop on generated product scenes whose product box is known: it must keep the whole
/// product far more often than a centre crop, on every kind of background, deterministically.
struct SmartCropTests {
    /// 24 scenes (4 frames x 3 backgrounds x 2 products), 600 px on the long side so a debug run
    /// stays quick; `thumbd-bench crop` runs the full set at 1200 px against the peers.
    static let scenes: [CropScene] = {
        let generator = SceneGenerator(longSide: 600, productPhotos: productPhotos())
        return generator.scenes(repetitions: 1, seed: 19)
    }()

    static func productPhotos() -> [PixelBuffer] {
        let folder = TestPaths.testImages.appendingPathComponent("webp/reference")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".webp") }.sorted()
        return names.compactMap { name in
            guard let bytes = try? [UInt8](Data(contentsOf: folder.appendingPathComponent(name))),
                  let image = try? ImageCodecs.decode(bytes).pixels, min(image.width, image.height) >= 96 else { return nil }
            return image
        }
    }

    static func kept(_ scene: CropScene, _ gravity: Gravity) throws -> KeptShare {
        let jpeg = try ImageCodecs.encode(scene.image, .jpeg(quality: 92))
        let rendered = try Thumbnailer.render(from: jpeg, ThumbnailRequest(size: 200, fit: .cover, gravity: gravity))
        let crop = rendered.crop
        return KeptShare(product: scene.product, window: SceneRect(x: crop.x, y: crop.y, width: crop.width, height: crop.height))
    }

    @Test func smartKeepsTheWholeProductFarMoreOftenThanTheCentre() throws {
        #expect(Self.scenes.count == 24)
        var smart = KeptShareTally(), centre = KeptShareTally()
        var lost: [String] = []
        for scene in Self.scenes {
            let s = try Self.kept(scene, .smart)
            smart.add(s, background: scene.background)
            centre.add(try Self.kept(scene, .center), background: scene.background)
            if !s.whole { lost.append("\(scene.name) kept \(String(format: "%.2f", s.share))") }
        }
        // The scenes put the product off-centre: a centre crop loses most of them (17 % kept whole
        // when this was written; the smart crop 88 %: studio and blurred 100 %, busy clutter 62 %).
        #expect(centre.overall.wholePercent < 40)
        #expect(smart.overall.wholePercent >= 80, "smart crop lost: \(lost)")
        #expect(smart.overall.meanShare >= 0.93)
        for (background, floor) in [(SceneBackground.studio, 85.0), (.blurred, 85), (.busy, 50)] {
            #expect(smart.line(background).wholePercent >= floor, "\(background): \(smart.line(background).wholePercent) %; lost: \(lost)")
            #expect(smart.line(background).meanShare > centre.line(background).meanShare)
        }
    }

    @Test func theSameSceneGivesTheSameCrop() throws {
        let scene = try #require(Self.scenes.first { $0.background == .busy })
        let jpeg = try ImageCodecs.encode(scene.image, .jpeg(quality: 92))
        let variant = Variant(size: 120, fit: .cover, gravity: .smart)
        let first = try ThumbnailMaker().make(jpeg, as: variant)
        let second = try ThumbnailMaker().make(jpeg, as: variant)
        #expect(first.crop == second.crop && first.bytes == second.bytes)
        // And the generator itself is seeded.
        let again = SceneGenerator(longSide: 600, productPhotos: Self.productPhotos()).scenes(repetitions: 1, seed: 19)
        #expect(again.map(\.image) == Self.scenes.map(\.image))
    }

    @Test func centreGravityIsTheCentredSquare() throws {
        let scene = Self.scenes[0]
        let jpeg = try ImageCodecs.encode(scene.image, .jpeg(quality: 92))
        let crop = try Thumbnailer.render(from: jpeg, ThumbnailRequest(size: 100, fit: .cover)).crop
        let side = Double(min(scene.image.width, scene.image.height))
        #expect(crop == SourceRegion(x: (Double(scene.image.width) - side) / 2, y: (Double(scene.image.height) - side) / 2, width: side, height: side))
    }

    /// A phone stores the photo sideways: the crop is chosen upright and still holds the product.
    @Test(arguments: [Orientation.right, .left, .down, .upMirrored])
    func smartCropIsChosenOnTheUprightPhoto(_ orientation: Orientation) throws {
        let scene = try #require(Self.scenes.first { $0.background == .studio && $0.frame == .threeByTwo })
        let jpeg = try PhonePhoto.jpeg(upright: scene.image, orientation: orientation)
        let crop = try Thumbnailer.render(from: jpeg, ThumbnailRequest(size: 100, fit: .cover, gravity: .smart)).crop
        let kept = KeptShare(product: scene.product, window: SceneRect(x: crop.x, y: crop.y, width: crop.width, height: crop.height))
        #expect(kept.whole, "\(orientation): window \(crop), product \(scene.product)")
    }

    @Test func containIgnoresGravity() throws {
        let scene = Self.scenes[0]
        let jpeg = try ImageCodecs.encode(scene.image, .jpeg(quality: 92))
        let centre = try ThumbnailMaker().make(jpeg, as: Variant(size: 100, fit: .contain, gravity: .center))
        let smart = try ThumbnailMaker().make(jpeg, as: Variant(size: 100, fit: .contain, gravity: .smart))
        #expect(centre.bytes == smart.bytes)
    }

    /// The bench finds the peers' windows from their thumbnails: on ours, it must find ours.
    @Test func theLocatorFindsAKnownWindow() throws {
        for scene in Self.scenes.prefix(8) {
            let jpeg = try ImageCodecs.encode(scene.image, .jpeg(quality: 92))
            let made = try Thumbnailer.render(from: jpeg, ThumbnailRequest(size: 200, fit: .cover, gravity: .smart))
            let found = CropLocator.window(of: made.pixels, in: scene.image)
            let along = scene.image.width >= scene.image.height ? abs(found.x - made.crop.x) : abs(found.y - made.crop.y)
            #expect(along <= 0.01 * made.crop.width, "\(scene.name): found \(found), made \(made.crop)")
        }
    }

    @Test(arguments: ["center", "smart"])
    func gravityReadsItsOwnSpelling(_ text: String) throws {
        let gravity = try #require(Gravity(text))
        #expect(gravity.description == text)
        #expect(Gravity("Smart") == nil && Gravity("") == nil && Gravity("north") == nil)
    }
}

/// The saliency map and the window choice on their own.
struct SaliencyTests {
    /// A red jug left of centre on a grey sweep: the map is highest on it, and the window holds it.
    @Test func aPlainObjectOnAPlainBackgroundStandsOut() {
        var image = PixelBuffer(width: 96, height: 64)
        for y in 0..<64 {
            for x in 0..<96 {
                let i = (y * 96 + x) * 4
                let inJug = x >= 10 && x < 34 && y >= 20 && y < 52
                let grey = UInt8(230 - y / 4)
                (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]) = inJug ? (190, 40, 35) : (grey, grey, grey)
            }
        }
        let map = SaliencyMap(of: image)
        let inside = map.values[36 * 96 + 22], outside = map.values[36 * 96 + 70]
        #expect(inside > outside)
        let corner = CropWindow.best(in: map, width: 64, height: 64)
        #expect(corner.x <= 10 && corner.x + 64 >= 34, "window at \(corner)")
    }

    /// A step from dark to light, crisp or spread over 30 px as a blurred background spreads it.
    static func step(width: Int, height: Int, ramp: Int) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let t = ramp == 0 ? (x < width / 2 ? 0.0 : 1.0) : min(1, max(0, Double(x - width / 2 + ramp / 2) / Double(ramp)))
                let v = UInt8(40 + 170 * t)
                let i = (y * width + x) * 4
                (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]) = (v, v, v)
            }
        }
        return image
    }

    /// A 64 x 40 detail grid: grain of about 2 everywhere, a sharp product outline (30) in the
    /// middle, and at the frame's edge either nothing more (a sweep, a blurred room) or things in
    /// focus on one cell in four (a busy room).
    static func detailGrid(busyEdge: Bool) -> [Float] {
        let (w, h) = (64, 40)
        return (0..<(w * h)).map { i in
            let (x, y) = (i % w, i / w)
            let grain: Float = 1.8 + 0.4 * Float((x * 7 + y * 13) % 5) / 4
            if x >= 24 && x < 40 && y >= 12 && y < 28 && (x == 24 || x == 39 || y == 12 || y == 27) { return 30 }
            let atEdge = x < 4 || x >= w - 4 || y < 4 || y >= h - 4
            return busyEdge && atEdge && (x + y).isMultiple(of: 4) ? 25 : grain
        }
    }

    /// The sharp-detail cue counts more only where the edge is plain: before a blurred room, where
    /// sharpness alone tells the product in focus; not before a busy one, where it is everywhere.
    @Test func aPlainEdgeIsToldFromABusyOne() {
        #expect(SaliencyMap.edgePlainness(Self.detailGrid(busyEdge: false), width: 64, height: 40) == 1)
        #expect(SaliencyMap.edgePlainness(Self.detailGrid(busyEdge: true), width: 64, height: 40) == 0)
        // Scale free: the same photo decoded noisier or larger (every value doubled) reads the same.
        #expect(SaliencyMap.edgePlainness(Self.detailGrid(busyEdge: false).map { $0 * 2 }, width: 64, height: 40) == 1)
        #expect(SaliencyMap.edgePlainness([Float](repeating: 0, count: 64 * 40), width: 64, height: 40) == 1)
    }

    /// Sharp detail tells a crisp edge from a blurred one of the same contrast, and a plain area has none.
    @Test func sharpDetailSeesFocusNotContrast() {
        let crisp = SharpDetail(of: Self.step(width: 300, height: 210, ramp: 0), width: 100, height: 70)
        let soft = SharpDetail(of: Self.step(width: 300, height: 210, ramp: 30), width: 100, height: 70)
        let crispPeak = crisp.values.max() ?? 0, softPeak = soft.values.max() ?? 0
        #expect(crispPeak > 10 * softPeak, "crisp \(crispPeak), soft \(softPeak)")
        #expect(crisp.values[35 * 100 + 10] == 0 && crisp.values[35 * 100 + 90] == 0)
        let plain = SharpDetail(of: PixelBuffer(width: 90, height: 60), width: 30, height: 20)
        #expect(plain.values.allSatisfy { $0 == 0 })
    }

    /// The grid turns with the photo: measured on the stored photo and turned, its detail sits where
    /// the upright photo shows the crisp block that makes it.
    @Test(arguments: [Orientation.right, .left, .down, .upMirrored, .leftMirrored, .rightMirrored])
    func sharpDetailTurnsWithThePhoto(_ orientation: Orientation) {
        var stored = PixelBuffer(width: 300, height: 210)
        for y in 0..<210 {
            for x in 0..<300 {
                let i = (y * 300 + x) * 4
                let v: UInt8 = (30..<90).contains(x) && (40..<100).contains(y) ? 220 : 30
                (stored.pixels[i], stored.pixels[i + 1], stored.pixels[i + 2]) = (v, v, v)
            }
        }
        let turned = SharpDetail(of: stored, width: 100, height: 70).oriented(orientation)
        let upright = stored.oriented(orientation)
        #expect(turned.width == upright.width / 3 && turned.height == upright.height / 3)
        // Where the block is in the upright photo, in cells of 3 x 3 pixels.
        var (bx, by, bn) = (0.0, 0.0, 0.0)
        for y in 0..<upright.height {
            for x in 0..<upright.width where upright.pixels[(y * upright.width + x) * 4] > 100 {
                bx += Double(x); by += Double(y); bn += 1
            }
        }
        var (dx, dy, dn) = (0.0, 0.0, 0.0)
        for y in 0..<turned.height {
            for x in 0..<turned.width {
                let v = Double(turned.values[y * turned.width + x])
                dx += v * (Double(x) + 0.5); dy += v * (Double(y) + 0.5); dn += v
            }
        }
        let expected = ((bx / bn + 0.5) / 3, (by / bn + 0.5) / 3), found = (dx / dn, dy / dn)
        #expect(abs(expected.0 - found.0) < 1.5 && abs(expected.1 - found.1) < 1.5, "\(orientation): block at \(expected), detail at \(found)")
    }

    @Test func nothingSalientKeepsTheCentre() {
        let image = PixelBuffer(width: 90, height: 60)
        let corner = CropWindow.best(in: SaliencyMap(of: image), width: 60, height: 60)
        #expect(corner.x == 15 && corner.y == 0)
    }

    /// The scene the window's edges were weighed for: a plain product, bright along its outline and
    /// dimmer inside, beside a large, dimmer glow (a blurred lamp). Moving left a few columns gains
    /// more of the glow than it loses of the product, so the window that holds the most saliency
    /// cuts the product; the one chosen must not.
    @Test func theWindowDoesNotCutThroughAProductForMoreOfADimGlow() {
        let (w, h) = (64, 42)
        var values = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let (dx, dy) = (Float(x) + 0.5 - 46, Float(y) + 0.5 - 24)
                let radius = (dx * dx + dy * dy).squareRoot()
                let (gx, gy) = ((Float(x) + 0.5 - 16) / 14, (Float(y) + 0.5 - 21) / 24)
                values[y * w + x] = abs(radius - 10) < 1 ? 1 : radius < 10 ? 0.4 : gx * gx + gy * gy < 1 ? 0.25 : 0
            }
        }
        let corner = CropWindow.best(in: SaliencyMap(width: w, height: h, values: values), width: 42, height: 42)
        // The product spans x 35...57.
        #expect(corner.x <= 35 && corner.x + 42 >= 57, "window at x \(corner.x)...\(corner.x + 42)")
    }
}
