import BMPCodec
import Foundation
import ImageCore
import ImageQuality
import Testing
import TestSupport

/// Real photographs (third-party, never committed) written by Pillow as 24-bit and 8-bit (adaptive
/// palette) BMP in a temporary folder at test time, decoded by BMPCodec and by Pillow: identical, SSIM 1.
@Suite("BMP real photos", .requires(BMPTestFiles.photos != nil && Pillow.available, Comment(rawValue: BMPTestFiles.photos == nil ? BMPTestFiles.photosMissing : Pillow.missing)))
struct BMPPhotoTests {
    @Test("photos as 24-bit and 8-bit palette BMP decode as Pillow decodes them")
    func photosMatchPillow() throws {
        let photos = try CodecTestFiles.threePhotos()
        try #require(photos.count == 3, "fewer than 3 photos in \(String(describing: BMPTestFiles.photos))")
        let folder = try Pillow.temporaryFolder("bmp-photos")
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = """
        import sys
        from PIL import Image
        out = sys.argv[1]
        for i, path in enumerate(sys.argv[2:]):
            rgb = Image.open(path).convert("RGB")
            rgb.save(f"{out}/{i}_rgb24.bmp")
            rgb.convert("P", palette=Image.Palette.ADAPTIVE, colors=256).save(f"{out}/{i}_pal8.bmp")
        """
        try Pillow.run(["-c", script, folder.path] + photos.map(\.path))
        let files = (0..<photos.count).flatMap { i in ["rgb24", "pal8"].map { folder.appendingPathComponent("\(i)_\($0).bmp") } }
        let references = try Pillow.decode(files)
        for file in files {
            let reference = try #require(try references[file]?.get(), "Pillow could not read \(file.lastPathComponent)")
            let ours = try BMPCodec.decode([UInt8](try Data(contentsOf: file)), limits: DecodeLimits(), scale: .fullSize)
            let ssim = SSIM.compare(ours.pixels, reference)
            print("BMP photo \(photos[Int(file.lastPathComponent.prefix(1))!].lastPathComponent) \(file.lastPathComponent): \(ours.pixels.width)x\(ours.pixels.height), SSIM \(ssim)")
            #expect(ssim >= 0.97)
            #expect(differences(ours.pixels, reference).isEmpty, "\(file.lastPathComponent): \(differences(ours.pixels, reference))")
            #expect(!ours.pixels.hasAlpha)
        }
    }
}
