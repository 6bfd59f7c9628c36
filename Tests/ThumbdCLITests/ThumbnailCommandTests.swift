import ChildProcess
import Foundation
import ImageCodecs
import ImageCore
import Testing
import TestSupport

struct ThumbnailCommandTests {
    @Test func makesAThumbnailAndReportsIt() throws {
        let dir = try CLI.temporaryDirectory()
        let input = dir.appendingPathComponent("in.png")
        try Data(ImageCodecs.encode(SyntheticImage.gradient(width: 120, height: 90), .png)).write(to: input)
        let output = dir.appendingPathComponent("out.webp")
        let result = try CLI.run(["thumbnail", input.path, "-o", output.path, "--size", "33"])
        #expect(result.status == 0, "\(result.stderrText)")
        let decoded = try ImageCodecs.decode(TestPaths.bytes(output))
        #expect(decoded.info.format == .webp, "format follows -o's extension")
        #expect(decoded.pixels.width == 33 && decoded.pixels.height == 33)
    }

    /// AVIF out from -o's extension and back in as a source; --placeholder prints the photo's
    /// placeholder as JSON: its upright size and a ThumbHash.
    @Test func avifAndPlaceholders() throws {
        let dir = try CLI.temporaryDirectory()
        let input = dir.appendingPathComponent("in.png")
        try Data(ImageCodecs.encode(SyntheticImage.gradient(width: 160, height: 90), .png)).write(to: input)
        let avif = dir.appendingPathComponent("out.avif")
        let made = try CLI.run(["thumbnail", input.path, "-o", avif.path, "--size", "48", "--avif-speed", "9"])
        #expect(made.status == 0, "\(made.stderrText)")
        let decoded = try ImageCodecs.decode(TestPaths.bytes(avif))
        #expect(decoded.info.format == .avif && decoded.pixels.width == 48)

        let again = dir.appendingPathComponent("again.jpg")
        let placeholder = try CLI.run(["thumbnail", avif.path, "-o", again.path, "--size", "24", "--placeholder"])
        #expect(placeholder.status == 0, "\(placeholder.stderrText)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(placeholder.stdoutText.utf8)) as? [String: Any])
        #expect(json["width"] as? Int == 48 && json["height"] as? Int == 48 && json["color"] as? String == "srgb")
        #expect((json["thumbhash"] as? String).flatMap { Data(base64Encoded: $0) }?.isEmpty == false)
        #expect(try CLI.run(["thumbnail", input.path, "-o", avif.path, "--avif-speed", "11"]).status == 2)
    }

    /// JPEG XL is written by name (`-o thumb.jxl`, `--format jxl`) and read back; the formats thumbd
    /// only reads are a usage error as outputs, naming the ones it writes.
    @Test func jpegXLOutAndReadOnlyFormats() throws {
        let dir = try CLI.temporaryDirectory()
        let input = dir.appendingPathComponent("in.png")
        try Data(ImageCodecs.encode(SyntheticImage.gradient(width: 160, height: 90), .png)).write(to: input)
        let jxl = dir.appendingPathComponent("out.jxl")
        let made = try CLI.run(["thumbnail", input.path, "-o", jxl.path, "--size", "40"])
        #expect(made.status == 0, "\(made.stderrText)")
        let decoded = try ImageCodecs.decode(TestPaths.bytes(jxl))
        #expect(decoded.info.format == .jxl && decoded.pixels.width == 40)
        let named = dir.appendingPathComponent("named.img")
        #expect(try CLI.run(["thumbnail", input.path, "-o", named.path, "--format", "jxl", "--size", "20"]).status == 0)
        #expect(try ImageCodecs.format(of: TestPaths.bytes(named)) == .jxl)
        for output in ["out.gif", "out.tif", "out.bmp", "out.heic"] {
            let refused = try CLI.run(["thumbnail", input.path, "-o", dir.appendingPathComponent(output).path])
            #expect(refused.status == 2 && refused.stderrText.contains(".jxl"), "\(output): \(refused.stderrText)")
        }
    }

    @Test func aBadFileInABatchFailsAloneWithItsCode() throws {
        let dir = try CLI.temporaryDirectory()
        let good = dir.appendingPathComponent("good.png")
        try Data(ImageCodecs.encode(SyntheticImage.gradient(width: 40, height: 40), .png)).write(to: good)
        // An icon named .jpg: the bytes decide, and thumbd reads no ICO.
        let gif = dir.appendingPathComponent("icon.jpg")
        try Data([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0] + [UInt8](repeating: 0, count: 32)).write(to: gif)
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["thumbnail", good.path, gif.path, "--out-dir", out.path, "--size", "16"])
        #expect(result.status == 1)
        #expect(CLI.errorCodes(result.stderrText)[gif.path] == "unsupported_format", "\(result.stderrText)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("good.jpg").path))
    }

    @Test("usage errors exit 2 with a message", arguments: [
        ["thumbnail", "a.jpg"], ["thumbnail", "a.jpg", "b.jpg", "-o", "x.jpg"], ["thumbnail", "a.jpg", "-o", "x.jpg", "--size", "0"],
        ["thumbnail", "a.jpg", "-o", "x.jpg", "--quality", "101"], ["thumbnail", "a.jpg", "-o", "x.jpg", "--fit", "stretch"],
    ])
    func usage(_ arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(!result.stderrText.isEmpty)
    }

    /// Header-only images declaring 30000 x 30000 are refused before any pixel memory is taken.
    @Test("a 30000 x 30000 header is refused in little memory", arguments: ["png", "jpg", "webp"])
    func hugeHeader(_ kind: String) throws {
        let dir = try CLI.temporaryDirectory()
        let file = dir.appendingPathComponent("huge.\(kind)")
        try Data(HeaderOnly.image(kind, width: 30000, height: 30000)).write(to: file)
        // 30000 x 30000 x 4 bytes would be 3.4 GiB; thumbd must answer inside 256 MiB of address space.
        let result = try CLI.run(["thumbnail", file.path, "-o", dir.appendingPathComponent("out.jpg").path], addressSpaceMiB: 256)
        #expect(result.status == 1, "exit \(result.status) (128+signal is a crash)")
        #expect(CLI.errorCodes(result.stderrText)[file.path] == "pixel_limit_exceeded", "\(result.stderrText)")
    }

    @Test("a truncated file is refused", arguments: ["jpeg", "png", "webp"])
    func truncated(_ kind: String) throws {
        let dir = try CLI.temporaryDirectory()
        let settings: EncodeSettings = kind == "jpeg" ? .jpeg(quality: 90) : kind == "png" ? .png : .webp(quality: 90)
        let full = try ImageCodecs.encode(SyntheticImage.gradient(width: 300, height: 200), settings)
        let file = dir.appendingPathComponent("cut.\(kind)")
        try Data(full.prefix(full.count * 2 / 3)).write(to: file)
        let result = try CLI.run(["thumbnail", file.path, "-o", dir.appendingPathComponent("out.jpg").path])
        #expect(result.status == 1)
        let code = CLI.errorCodes(result.stderrText)[file.path]
        #expect(code == "truncated_image" || code == "corrupt_image", "\(result.stderrText)")
    }
}

/// Minimal files that declare a size and hold no pixel data.
enum HeaderOnly {
    static func image(_ kind: String, width: Int, height: Int) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { be32(v).reversed() }
        switch kind {
        case "png":
            let ihdr: [UInt8] = Array("IHDR".utf8) + be32(width) + be32(height) + [8, 6, 0, 0, 0]
            return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + ihdr + be32(Int(crc32(ihdr)))
                + be32(0) + Array("IEND".utf8) + be32(Int(crc32(Array("IEND".utf8))))
        case "jpg":
            let sof: [UInt8] = [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
                                0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
            return [0xFF, 0xD8] + sof + [0xFF, 0xD9]
        default:
            // VP8L: 14-bit width-1 and height-1 after the 0x2F signature byte.
            let bits = (width - 1) | (height - 1) << 14
            let vp8l: [UInt8] = [0x2F] + le32(bits) + [0, 0, 0, 0, 0]
            let chunk = Array("VP8L".utf8) + le32(vp8l.count) + vp8l
            return Array("RIFF".utf8) + le32(4 + chunk.count) + Array("WEBP".utf8) + chunk
        }
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
