import CropScenes
import Foundation
import ImageCodecs
import ImageCore
import ImageOps
import TestSupport

/// The scenes `thumbd-bench crop` measures, written as JPEG files every tool reads.
struct BenchCropScenes {
    var scenes: [CropScene]
    /// One file per scene, in scene order.
    var paths: [String]
    var backgroundSource: String

    /// Patterned products come from the photos that ship in TestImages; busy and blurred
    /// backgrounds from the corpus photos when there are any (else textured clutter).
    static func make(repetitions: Int, seed: UInt64, longSide: Int = 1200, corpus: [BenchFile], into folder: String) throws -> BenchCropScenes {
        let products = try productPhotos()
        let backgrounds = corpus.compactMap { try? backgroundPhoto($0.path) }
        let generator = SceneGenerator(longSide: longSide, productPhotos: products, backgroundPhotos: backgrounds)
        let scenes = generator.scenes(repetitions: repetitions, seed: seed)
        var paths: [String] = []
        for scene in scenes {
            let path = (folder as NSString).appendingPathComponent(scene.fileStem + ".jpg")
            try Data(ImageCodecs.encode(scene.image, .jpeg(quality: 92))).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let source = backgrounds.isEmpty ? "textured clutter (no corpus photos)" : "\(backgrounds.count) corpus photos"
        return BenchCropScenes(scenes: scenes, paths: paths, backgroundSource: source)
    }

    /// The photos in TestImages/webp/reference of at least 96 px.
    static func productPhotos() throws -> [PixelBuffer] {
        let folder = TestPaths.testImages.appendingPathComponent("webp/reference")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".webp") }.sorted()
        let photos = names.compactMap { name -> PixelBuffer? in
            guard let bytes = try? [UInt8](Data(contentsOf: folder.appendingPathComponent(name))),
                  let image = try? ImageCodecs.decode(bytes).pixels, min(image.width, image.height) >= 96 else { return nil }
            return image
        }
        guard !photos.isEmpty else { throw ValidationErrorMessage("no product photos in \(folder.path)") }
        return photos
    }

    /// A corpus photo decoded upright at about 1600 px, enough for a 1200 px scene.
    static func backgroundPhoto(_ path: String) throws -> PixelBuffer {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let info = try ImageCodecs.readInfo(bytes)
        let scale = min(1, 1600 / Double(max(info.width, info.height)))
        let decoded = try ImageCodecs.decode(bytes, scale: DecodeScaleHint(minimumScale: scale))
        return decoded.pixels.oriented(info.orientation).flattened()
    }
}
