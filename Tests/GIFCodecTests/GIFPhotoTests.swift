import Foundation
import GIFCodec
import ImageCore
import ImageQuality
import Testing
import TestSupport

/// Real photographs (third-party, never committed) written by Pillow as a GIF with an adaptive
/// palette and as a 2-frame animation, in a temporary folder at test time; decoded by GIFCodec and
/// by Pillow (its first frame): identical, SSIM 1.
@Suite("GIF real photos", .requires(GIFTestFiles.photos != nil && Pillow.available, Comment(rawValue: GIFTestFiles.photos == nil ? GIFTestFiles.photosMissing : Pillow.missing)))
struct GIFPhotoTests {
    @Test("photos as GIF (adaptive palette, interlaced as Pillow writes them) and 2-frame GIF decode as Pillow's first frame")
    func photosMatchPillow() throws {
        let photos = try CodecTestFiles.threePhotos()
        try #require(photos.count == 3, "fewer than 3 photos in \(String(describing: GIFTestFiles.photos))")
        let folder = try Pillow.temporaryFolder("gif-photos")
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = """
        import sys
        from PIL import Image, ImageOps
        out = sys.argv[1]
        for i, path in enumerate(sys.argv[2:]):
            rgb = Image.open(path).convert("RGB")
            first = rgb.convert("P", palette=Image.Palette.ADAPTIVE, colors=256)
            first.save(f"{out}/{i}_still.gif")
            second = ImageOps.mirror(rgb).convert("P", palette=Image.Palette.ADAPTIVE, colors=256)
            first.save(f"{out}/{i}_animated.gif", save_all=True, append_images=[second], duration=200, loop=0)
        """
        try Pillow.run(["-c", script, folder.path] + photos.map(\.path))
        let files = (0..<photos.count).flatMap { i in ["still", "animated"].map { folder.appendingPathComponent("\(i)_\($0).gif") } }
        let references = try Pillow.decode(files)
        for file in files {
            let reference = try #require(try references[file]?.get(), "Pillow could not read \(file.lastPathComponent)")
            let data = [UInt8](try Data(contentsOf: file))
            let ours = try GIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
            let ssim = SSIM.compare(ours.pixels, reference)
            print("GIF photo \(photos[Int(file.lastPathComponent.prefix(1))!].lastPathComponent) \(file.lastPathComponent): \(ours.pixels.width)x\(ours.pixels.height), SSIM \(ssim)")
            #expect(ssim >= 0.97)
            #expect(differences(ours.pixels, reference).isEmpty, "\(file.lastPathComponent): \(differences(ours.pixels, reference))")
            #expect(ours.info.isAnimated == file.lastPathComponent.contains("animated"))
            #expect(try GIFCodec.readInfo(data, limits: DecodeLimits()).isAnimated == ours.info.isAnimated)
        }
    }
}
