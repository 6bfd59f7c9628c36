import Foundation
import ImageCodecs
import ImageCore
import ImageQuality
import Testing
import TestSupport
import Thumbnailer

/// GIF (still and animated), TIFF, BMP and JPEG XL versions of real photos, made at test time, go
/// through the whole path (sniff, decode, colour, resize, encode) and come out as the thumbnail of
/// what an independent decoder (Pillow, djxl) reads from the same file.
@Suite("Thumbnails of every input format against an independent decoder",
       .requires(CodecTestFiles.photos != nil && Pillow.available, Comment(rawValue: CodecTestFiles.photos == nil ? CodecTestFiles.photosMissing : Pillow.missing)))
struct InputFormatThumbnailTests {
    static let cjxl = ["/usr/bin/cjxl", "/usr/local/bin/cjxl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let djxl = ["/usr/bin/djxl", "/usr/local/bin/djxl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("each format's thumbnail matches the thumbnail of the reference decode at SSIM >= 0.97")
    func thumbnailsMatchTheReference() throws {
        let photos = try CodecTestFiles.threePhotos()
        try #require(photos.count == 3)
        let folder = try Pillow.temporaryFolder("format-thumbnails")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Each photo as GIF, a 2-frame GIF, LZW TIFF, 24-bit BMP; beside each, Pillow's decode as PNG
        // (the first frame of the animation).
        let script = """
        import sys
        from PIL import Image, ImageOps
        out = sys.argv[1]
        for i, path in enumerate(sys.argv[2:]):
            rgb = Image.open(path).convert("RGB")
            rgb.thumbnail((1200, 1200))
            rgb.save(f"{out}/{i}.png")
            still = rgb.convert("P", palette=Image.Palette.ADAPTIVE, colors=256)
            still.save(f"{out}/{i}_still.gif")
            other = ImageOps.mirror(rgb).convert("P", palette=Image.Palette.ADAPTIVE, colors=256)
            still.save(f"{out}/{i}_animated.gif", save_all=True, append_images=[other], duration=200, loop=0)
            rgb.save(f"{out}/{i}.tif", compression="tiff_lzw")
            rgb.save(f"{out}/{i}.bmp")
            for name in ["still.gif", "animated.gif", "tif", "bmp"]:
                file = f"{out}/{i}_{name}" if name.endswith("gif") else f"{out}/{i}.{name}"
                im = Image.open(file)
                im.seek(0)
                im.convert("RGB").save(file + ".reference.png")
        """
        try Pillow.run(["-c", script, folder.path] + photos.map(\.path))
        var cases: [(file: URL, reference: URL)] = []
        for i in photos.indices {
            for name in ["\(i)_still.gif", "\(i)_animated.gif", "\(i).tif", "\(i).bmp"] {
                let file = folder.appendingPathComponent(name)
                cases.append((file, file.appendingPathExtension("reference.png")))
            }
            if let cjxl = Self.cjxl, let djxl = Self.djxl {
                let png = folder.appendingPathComponent("\(i).png"), jxl = folder.appendingPathComponent("\(i).jxl")
                let reference = folder.appendingPathComponent("\(i).jxl.reference.png")
                try Pillow.runTool(cjxl, [png.path, jxl.path, "-d", "1", "--quiet"])
                try Pillow.runTool(djxl, [jxl.path, reference.path, "--quiet"])
                cases.append((jxl, reference))
            } else {
                try Requirement.unmet("cjxl or djxl (libjxl-tools) is missing: the JPEG XL thumbnails cannot be compared")
            }
        }
        let request = ThumbnailRequest(width: 200, height: 200, fit: .cover, gravity: .center)
        for (file, reference) in cases {
            let bytes = try TestPaths.bytes(file)
            let ours = try Thumbnailer.render(from: bytes, request).pixels
            let theirs = try Thumbnailer.render(from: TestPaths.bytes(reference), request).pixels
            let ssim = SSIM.compare(ours, theirs)
            print("\(file.lastPathComponent) (\(try ImageCodecs.format(of: bytes).rawValue)): thumbnail SSIM \(ssim)")
            #expect((ours.width, ours.height) == (200, 200))
            #expect(ssim >= 0.97, "\(file.lastPathComponent): SSIM \(ssim)")
        }
    }
}
