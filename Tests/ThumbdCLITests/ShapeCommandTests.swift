import Foundation
import ImageCodecs
import ImageCore
import Testing
import TestSupport

/// The variant's shapes on the command line: `thumbnail --size WxH --fit pad --background …
/// --dpr --max-bytes`, `prepare --size WxH --fit pad`, and their usage errors (exit 2).
struct ShapeCommandTests {
    static func photo(in folder: URL, width: Int = 1600, height: Int = 1200) throws -> String {
        let path = folder.appendingPathComponent("photo.jpg").path
        try Data(try ImageCodecs.encode(PhonePhoto.synthetic(width: width, height: height, seed: 11), .jpeg(quality: 90)))
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func thumbnailShapes() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.photo(in: folder)
        for (arguments, file, width, height) in [
            (["--size", "300x400"], "card.jpg", 300, 400),
            (["--size", "320x180", "--dpr", "2", "--gravity", "center"], "banner.webp", 640, 360),
            (["--size", "600", "--fit", "pad", "--background", "ffffff"], "cell.jpg", 600, 600),
            (["--size", "400x300", "--fit", "pad", "--background", "blur"], "blur.avif", 400, 300),
            (["--size", "300x400", "--fit", "contain"], "inside.png", 300, 225),
        ] {
            let output = folder.appendingPathComponent(file).path
            let result = try CLI.run(["thumbnail", input, "-o", output] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderrText)")
            let image = try ImageCodecs.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))).pixels
            #expect((image.width, image.height) == (width, height), "\(arguments): \(image.width)x\(image.height)")
        }
        // --format avif is the documented spelling, and works as the extension does.
        let avif = folder.appendingPathComponent("t.img").path
        #expect(try CLI.run(["thumbnail", input, "-o", avif, "--format", "avif"]).status == 0)
        #expect(SniffedFormat.sniff([UInt8](try Data(contentsOf: URL(fileURLWithPath: avif)))) == .supported(.avif))
    }

    @Test func transparentBandsInABatchAreWrittenWithAlpha() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.photo(in: folder)
        let out = folder.appendingPathComponent("out")
        let result = try CLI.run(["thumbnail", input, "--out-dir", out.path, "--size", "300x400", "--fit", "pad", "--background", "transparent"])
        #expect(result.status == 0, "\(result.stderrText)")
        let image = try ImageCodecs.decode([UInt8](try Data(contentsOf: out.appendingPathComponent("photo.png")))).pixels
        #expect(image.pixel(x: 150, y: 2).a == 0 && image.pixel(x: 150, y: 200).a == 255)
        let jpeg = try CLI.run(["thumbnail", input, "--out-dir", out.path, "--size", "300x400", "--fit", "pad", "--background", "transparent",
                                "--format", "jpeg"])
        #expect(jpeg.status == 2 && jpeg.stderrText.contains("--background"), "\(jpeg.stderrText)")
    }

    @Test func maxBytesHoldsOrFailsWithItsCode() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.photo(in: folder)
        let output = folder.appendingPathComponent("t.jpg").path
        let capped = try CLI.run(["thumbnail", input, "-o", output, "--size", "800x600", "--quality", "95", "--max-bytes", "60000"])
        #expect(capped.status == 0, "\(capped.stderrText)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(bytes.count <= 60000 && bytes.count > 20000, "\(bytes.count)")
        let tiny = try CLI.run(["thumbnail", input, "-o", output, "--size", "800x600", "--max-bytes", "300"])
        #expect(tiny.status == 1 && tiny.stderrText.contains("budget_unreachable"), "\(tiny.stderrText)")
    }

    @Test("a bad shape is a usage error naming its option", arguments: [
        (["--size", "0x400"], "--size"), (["--size", "300x"], "--size"), (["--size", "300x400x2"], "--size"),
        (["--size", "5000"], "--size"), (["--fit", "pad", "--background", "zzz"], "--background"), (["--dpr", "0"], "--dpr"),
        (["--max-bytes", "-1"], "--max-bytes"), (["--fit", "pad", "--gravity", "smart"], "--gravity"),
        (["--fit", "pad", "--background", "transparent"], "--background"),
    ])
    func refusals(_ arguments: [String], _ option: String) throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.photo(in: folder, width: 64, height: 48)
        let result = try CLI.run(["thumbnail", input, "-o", folder.appendingPathComponent("t.jpg").path] + arguments)
        #expect(result.status == 2 && result.stderrText.contains(option), "\(arguments): \(result.status) \(result.stderrText)")
        // The subcommand's usage, also for what is found after parsing (the variant is read in run()).
        #expect(result.stderrText.contains("Usage: thumbd thumbnail ") && result.stderrText.contains("See 'thumbd thumbnail --help'"),
                "\(arguments): \(result.stderrText)")
    }

    @Test func prepareTakesTheSameShapes() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.photo(in: folder, width: 1600, height: 900)
        let out = folder.appendingPathComponent("ready")
        let result = try CLI.run(["prepare", input, "--out", out.path, "--size", "1200x1200", "--fit", "pad", "--background", "ffffff",
                                  "--budget", "400KiB"])
        #expect(result.status == 0, "\(result.stderrText)")
        let image = try ImageCodecs.decode([UInt8](try Data(contentsOf: out.appendingPathComponent("1-photo.jpg")))).pixels
        #expect((image.width, image.height) == (1200, 1200))
        // The bands are the background: the top rows are white, the middle is the photo.
        let top = image.pixel(x: 600, y: 10), middle = image.pixel(x: 600, y: 600)
        #expect(top.r > 245 && top.g > 245 && top.b > 245)
        #expect(!(middle.r > 245 && middle.g > 245 && middle.b > 245))
        let refused = try CLI.run(["prepare", input, "--out", out.path, "--fit", "pad"])
        #expect(refused.status == 2 && refused.stderrText.contains("--size"), "\(refused.stderrText)")
    }

    @Test func signChecksTheVariantBeforeSigningIt() throws {
        let signed = try CLI.run(["sign", "https://img.example/p.jpg", "--size", "300x400", "--fit", "pad", "--background", "blur", "--key", "k"])
        #expect(signed.status == 0 && signed.stdoutText.contains("size=300x400") && signed.stdoutText.contains("bg=blur")
                && signed.stdoutText.contains("&sig="), "\(signed.stdoutText) \(signed.stderrText)")
        let refused = try CLI.run(["sign", "https://img.example/p.jpg", "--size", "300x", "--key", "k"])
        #expect(refused.status == 2 && refused.stderrText.contains("--size") && refused.stdoutText.isEmpty)
    }
}
