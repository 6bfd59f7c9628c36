import Foundation
import ImageCodecs
import ImageCore
import ImageQuality
import Testing
import TestSupport

/// `thumbd thumbnail --size A --size B ...`: one decode of each photo for all its sizes, each file
/// named with its size, and each size as good as when made alone.
struct SeveralSizesCommandTests {
    /// Real photos, and a progressive copy of one (whose small sizes alone are decoded from its DC
    /// scans only): every size made beside the others keeps the single-size thumbnail's format and
    /// size and matches its pixels at SSIM 0.995 or better. PNG out, so the encoder's noise is not compared.
    @Test("each size of a photo made with the others is its single-size thumbnail",
          .requires(CodecTestFiles.photos != nil && Pillow.available,
                    Comment(rawValue: CodecTestFiles.photos == nil ? CodecTestFiles.photosMissing : Pillow.missing)))
    func sizesMatchSingleSizeThumbnails() throws {
        let dir = try CLI.temporaryDirectory()
        var photos = try CodecTestFiles.threePhotos()
        try #require(photos.count == 3, "fewer than 3 photos in \(String(describing: CodecTestFiles.photos))")
        let progressive = dir.appendingPathComponent("progressive.jpg")
        try Pillow.run(["-c", "import sys; from PIL import Image; Image.open(sys.argv[1]).save(sys.argv[2], quality=90, progressive=True)",
                        photos[0].path, progressive.path])
        photos.append(progressive)
        let sizes = ["48", "160", "300x400", "640"]
        // A smart crop is made from the decode it would have had alone (it weighs the decoded pixels'
        // sharp detail); centre crops and contained photos are resized from the shared decode.
        for (fit, gravity) in [("cover", "smart"), ("cover", "center"), ("contain", "center")] {
            let together = dir.appendingPathComponent("together-\(fit)-\(gravity)")
            let shape = ["--fit", fit, "--gravity", gravity]
            let made = try CLI.run(["thumbnail"] + photos.map(\.path) + ["--out-dir", together.path, "--format", "png", "-q"] + shape
                                   + sizes.flatMap { ["--size", $0] })
            #expect(made.status == 0, "\(made.stderrText)")
            for photo in photos {
                let base = photo.deletingPathExtension().lastPathComponent
                for size in sizes {
                    let alone = dir.appendingPathComponent("alone-\(fit)-\(gravity)-\(base)-\(size).png")
                    let single = try CLI.run(["thumbnail", photo.path, "-o", alone.path, "--size", size, "-q"] + shape)
                    #expect(single.status == 0, "\(single.stderrText)")
                    let shared = try ImageCodecs.decode(TestPaths.bytes(together.appendingPathComponent("\(base)-\(size).png")))
                    let reference = try ImageCodecs.decode(TestPaths.bytes(alone))
                    #expect(shared.info.format == .png && shared.info.hasAlpha == reference.info.hasAlpha)
                    try #require(shared.pixels.width == reference.pixels.width && shared.pixels.height == reference.pixels.height,
                                 "\(base) \(fit) \(gravity) \(size): \(shared.pixels.width)x\(shared.pixels.height) beside \(reference.pixels.width)x\(reference.pixels.height) alone")
                    let ssim = SSIM.compare(shared.pixels, reference.pixels)
                    #expect(ssim >= 0.995, "\(base) \(fit) \(gravity) \(size): SSIM \(ssim) against the single-size thumbnail")
                }
            }
        }
    }

    /// -o's name takes each size before its extension; a format by -o's extension holds for all;
    /// a line is printed for each thumbnail.
    @Test func namesEachFileWithItsSize() throws {
        let dir = try CLI.temporaryDirectory()
        let input = dir.appendingPathComponent("in.png")
        try Data(ImageCodecs.encode(SyntheticImage.gradient(width: 400, height: 300), .png)).write(to: input)
        let result = try CLI.run(["thumbnail", input.path, "-o", dir.appendingPathComponent("card.webp").path,
                                  "--size", "64", "--size", "40x30", "--size", "200"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.split(separator: "\n").count == 3, "\(result.stdoutText)")
        for (name, width, height) in [("card-64.webp", 64, 64), ("card-40x30.webp", 40, 30), ("card-200.webp", 200, 200)] {
            let decoded = try ImageCodecs.decode(TestPaths.bytes(dir.appendingPathComponent(name)))
            #expect(decoded.info.format == .webp && decoded.pixels.width == width && decoded.pixels.height == height, "\(name)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("card.webp").path))
    }

    /// A file that cannot be decoded is one error, not one for each size; the batch's other photo is made in every size.
    @Test func anUndecodableFileFailsOnce() throws {
        let dir = try CLI.temporaryDirectory()
        let good = dir.appendingPathComponent("good.png")
        try Data(ImageCodecs.encode(SyntheticImage.gradient(width: 90, height: 90), .png)).write(to: good)
        let bad = dir.appendingPathComponent("bad.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + [UInt8](repeating: 7, count: 40)).write(to: bad)
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["thumbnail", good.path, bad.path, "--out-dir", out.path, "--size", "20", "--size", "30"])
        #expect(result.status == 1)
        #expect(result.stderrText.components(separatedBy: "error: ").count - 1 == 1, "\(result.stderrText)")
        #expect(CLI.errorCodes(result.stderrText)[bad.path] != nil, "\(result.stderrText)")
        for name in ["good-20.jpg", "good-30.jpg"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), "\(name)")
        }
    }

    @Test("several sizes are refused where one is made, a size given twice, and over 8 sizes a prefetch", arguments: [
        ["thumbnail", "a.jpg", "--out-dir", "d", "--size", "160", "--size", "160"],
        ["thumbnail", "a.jpg", "--out-dir", "d", "--size", "300x400", "--size", "300X400"],
        ["prefetch", "--size", "160", "--size", "160", "http://127.0.0.1:9/a.jpg"],
        ["prefetch", "--size", "1", "--size", "2", "--size", "3", "--size", "4", "--size", "5", "--size", "6", "--size", "7",
         "--size", "8", "--size", "9", "http://127.0.0.1:9/a.jpg"],
        ["sign", "http://127.0.0.1:9/a.jpg", "--size", "160", "--size", "320", "--key", "k"],
        ["prepare", "a.jpg", "--out", "d", "--size", "160", "--size", "320"],
    ])
    func refused(_ arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderrText)")
        #expect(result.stderrText.contains("--size"), "\(arguments): \(result.stderrText)")
    }
}
