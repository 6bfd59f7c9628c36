import ChildProcess
import Foundation
import ImageCodecs
import ImageCore
import Testing
import TestSupport

/// `thumbd thumbnail photo.heic`: HEIC in, JPEG/PNG/WebP/AVIF out, never HEIC out.
@Suite(.requires(HEIFEnc.available, Comment(rawValue: HEIFEnc.missing ?? "")))
struct HEICCommandTests {
    @Test func thumbnailFromHEIC() throws {
        let dir = try CLI.temporaryDirectory()
        let input = dir.appendingPathComponent("photo.heic")
        let photo = PhonePhoto.synthetic(width: 160, height: 120, seed: 4)
        try Data(HEIFEnc.encode(photo)).write(to: input)
        for (name, format) in [("thumb.jpg", ImageFormat.jpeg), ("thumb.webp", .webp), ("thumb.png", .png), ("thumb.avif", .avif)] {
            let output = dir.appendingPathComponent(name)
            let result = try CLI.run(["thumbnail", input.path, "-o", output.path, "--size", "40", "--avif-speed", "10"])
            #expect(result.status == 0, "\(name): \(result.stderrText)")
            let decoded = try ImageCodecs.decode(TestPaths.bytes(output))
            #expect(decoded.info.format == format && decoded.pixels.width == 40 && decoded.pixels.height == 40, "\(name)")
        }
        // Without -o's extension to go by (--out-dir), an opaque HEIC becomes a JPEG.
        let out = dir.appendingPathComponent("out")
        let batch = try CLI.run(["thumbnail", input.path, "--out-dir", out.path, "--size", "32"])
        #expect(batch.status == 0, "\(batch.stderrText)")
        #expect(try ImageCodecs.format(of: TestPaths.bytes(out.appendingPathComponent("photo.jpg"))) == .jpeg)
    }

    @Test func heicOutputIsAUsageError() throws {
        let result = try CLI.run(["thumbnail", "a.jpg", "-o", "thumb.heic"])
        #expect(result.status == 2)
        #expect(result.stderrText.contains("does not write"), "\(result.stderrText)")
        #expect(try CLI.run(["thumbnail", "a.jpg", "-o", "thumb.jpg", "--format", "heic"]).status == 2)
    }
}
