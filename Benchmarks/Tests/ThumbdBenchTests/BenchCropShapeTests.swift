import ChildProcess
import CropScenes
import Foundation
import ImageCodecs
import ImageCore
import ImageOps
import Testing
import Thumbnailer
@testable import ThumbdBench

/// `--shape WxH`: the option refuses what is not a box, and the crop bench's machinery (thumbd's
/// windows, vips', the locator that finds a peer's window) works with windows of that shape, not
/// only squares. Small scenes (480 px), so the suite takes a few seconds.
@Suite struct BenchCropShapeTests {
    @Test(arguments: ["0x10", "10x", "abc", "x10", "10x0", "10x10x10", "-5x10", "10 x 10", "5000x10", "10", ""])
    func aBadShapeIsRefused(_ text: String) {
        #expect(throws: (any Error).self, "\(text) was taken") { try BenchShape.parse(text) }
        #expect(throws: (any Error).self) { try BenchCropCommand.parse(["--shape", text]) }
        #expect(throws: (any Error).self) { try BenchThumbnailsCommand.parse(["--corpus", ".", "--shape", text]) }
    }

    @Test func aGoodShapeIsRead() throws {
        #expect(try BenchShape.parse("240x320") == BenchShape(width: 240, height: 320))
        let command = try BenchCropCommand.parse(["--shape", "320x180"])
        #expect(command.box == BenchShape(width: 320, height: 180))
        #expect(command.box.label == "320x180 (16:9)")
        // No shape: the square the bench always used, labelled as before.
        #expect(try BenchCropCommand.parse([]).box.label == "200 px")
        #expect(throws: (any Error).self) { try BenchCropCommand.parse(["--size", "200", "--shape", "240x320"]) }
    }

    /// One scene of each frame shape on a plain studio sweep and on clutter, 480 px on the long side.
    static func scenes(in folder: String) throws -> BenchCropScenes {
        let generator = SceneGenerator(longSide: 480, productPhotos: try BenchCropScenes.productPhotos())
        let scenes = SceneFrame.allCases.flatMap { frame in
            [SceneBackground.studio, .busy].map { generator.scene(frame: frame, background: $0, look: .plain, index: 0, seed: 19) }
        }
        let paths = try scenes.map { scene in
            let path = (folder as NSString).appendingPathComponent(scene.fileStem + ".jpg")
            try Data(ImageCodecs.encode(scene.image, .jpeg(quality: 92))).write(to: URL(fileURLWithPath: path))
            return path
        }
        return BenchCropScenes(scenes: scenes, paths: paths, backgroundSource: "textured clutter")
    }

    static func expectShape(_ windows: [SceneRect?], _ shape: BenchShape, in scenes: [CropScene], _ method: String) {
        #expect(windows.count == scenes.count, "\(method)")
        for (window, scene) in zip(windows, scenes) {
            guard let window else {
                Issue.record("\(method): no window for \(scene.name)")
                continue
            }
            let aspect = window.width / window.height, wanted = Double(shape.width) / Double(shape.height)
            #expect(abs(aspect / wanted - 1) < 0.01, "\(method) \(scene.name): window \(window) is not \(shape.aspect)")
            // The largest window of the shape: it keeps one whole side of the scene.
            let keepsASide = abs(window.width - Double(scene.image.width)) < 2 || abs(window.height - Double(scene.image.height)) < 2
            #expect(keepsASide, "\(method) \(scene.name): window \(window) keeps no whole side of \(scene.image.width)x\(scene.image.height)")
        }
    }

    @Test(arguments: [BenchShape(width: 60, height: 80), BenchShape(width: 80, height: 45)])
    func thumbdCropsToTheShape(_ shape: BenchShape) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-crop-shape-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenes = try Self.scenes(in: folder)
        let bytes = try scenes.paths.map { try [UInt8](Data(contentsOf: URL(fileURLWithPath: $0))) }
        let ours = BenchCropThumbd.run(bytes, shape: shape, rounds: 1)
        for gravity in [Gravity.center, .smart] {
            Self.expectShape(ours.crops[gravity] ?? [], shape, in: scenes.scenes, "thumbd \(gravity)")
        }
    }

    @Test(.requires(ChildProcess.isInstalled("vipsthumbnail"), "vipsthumbnail is not installed (libvips-tools; make test installs it)"))
    func vipsFillsTheBoxAndIsLocated() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-crop-vips-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenes = try Self.scenes(in: folder)
        let shape = BenchShape(width: 60, height: 80)
        let method = try BenchCropPeers.vips("attention", scenes: scenes, shape: shape, rounds: 1, folder: folder)
        #expect(method.offShape.isEmpty, "vips made other sizes: \(method.offShape)")
        Self.expectShape(method.windows, shape, in: scenes.scenes, "vips attention")
    }

    /// A thumbnail cut from a known window is found there, along whichever side the shape slides.
    @Test(arguments: [(SceneFrame.threeByTwo, BenchShape(width: 60, height: 80), 0.7),
                      (SceneFrame.twoByThree, BenchShape(width: 80, height: 45), 0.2),
                      (SceneFrame.sixteenByNine, BenchShape(width: 40, height: 40), 0.9)])
    func theLocatorFindsARectangularWindow(_ frame: SceneFrame, _ shape: BenchShape, _ along: Double) throws {
        let generator = SceneGenerator(longSide: 480, productPhotos: try BenchCropScenes.productPhotos())
        let scene = generator.scene(frame: frame, background: .busy, look: .patterned, index: 1, seed: 7).image
        let window = CoverWindow(sceneWidth: scene.width, sceneHeight: scene.height, aspect: Double(shape.width) / Double(shape.height))
        let room = window.slidesHorizontally ? Double(scene.width) - window.width : Double(scene.height) - window.height
        let truth = window.placed(at: (room * along).rounded())
        let thumbnail = Resampler.resize(scene, region: SourceRegion(x: truth.x, y: truth.y, width: truth.width, height: truth.height),
                                         width: shape.width, height: shape.height)
        let found = CropLocator.window(of: thumbnail, in: scene)
        // One thumbnail pixel is this many scene pixels: the locator works at the thumbnail's scale.
        let step = truth.width / Double(shape.width)
        #expect(abs(found.x - truth.x) <= 1.5 * step && abs(found.y - truth.y) <= 1.5 * step, "found \(found), cut from \(truth)")
        #expect(abs(found.width - truth.width) < 0.5 && abs(found.height - truth.height) < 0.5, "found \(found), cut from \(truth)")
    }

    /// A 16:9 window on a portrait scene is shorter than a tall product: no crop of that shape can
    /// keep it whole, and the table's last row says so. A square always holds the generator's
    /// products, and the table is then as it always was.
    @Test func theWidestWindowBoundsWhatAnyCropCanKeep() throws {
        let wide = CoverWindow(sceneWidth: 320, sceneHeight: 480, aspect: 16.0 / 9)
        #expect(!wide.slidesHorizontally && wide.width == 320 && abs(wide.height - 180) < 1e-9)
        let tall = wide.bestKept(SceneRect(x: 100, y: 100, width: 100, height: 300))
        #expect(!tall.whole && abs(tall.share - 0.6) < 1e-9)
        #expect(wide.bestKept(SceneRect(x: 10, y: 300, width: 300, height: 170)).whole)

        let generator = SceneGenerator(longSide: 480, productPhotos: try BenchCropScenes.productPhotos())
        let scenes = generator.scenes(repetitions: 1, seed: 19)
        #expect(BenchCropReport.ceilingRows(scenes, shape: .square(200)).isEmpty)
    }
}
