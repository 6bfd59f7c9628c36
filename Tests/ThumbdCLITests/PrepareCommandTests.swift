import ChildProcess
import Foundation
import ImageCodecs
import ImageCore
import Testing
import TestSupport

/// `thumbd prepare` as a seller's tool runs it: real files in, files, manifest.json and a
/// registration body out, or nothing at all.
struct PrepareCommandTests {
    /// Five phone photos (2400x1800, turned by EXIF, with GPS, XMP and a comment) written to a folder.
    static func photos(in folder: URL, count: Int = 5) throws -> [String] {
        try (0..<count).map { index in
            let upright = PhonePhoto.synthetic(width: index % 2 == 0 ? 2400 : 1800, height: index % 2 == 0 ? 1800 : 2400, seed: UInt64(70 + index))
            let path = folder.appendingPathComponent("IMG_10\(index).JPG").path
            try Data(try PhonePhoto.jpeg(upright: upright, orientation: [.right, .left, .down, .up, .right][index])).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    /// --extra-size: each photo also written at the smaller sizes, named with them, listed in the
    /// manifest and the table; a size given twice is a usage error.
    @Test func extraSizesAreWrittenBesideEachPhoto() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try Self.photos(in: folder, count: 2)
        let out = folder.appendingPathComponent("ready")
        let result = try CLI.run(["prepare"] + inputs + ["--out", out.path, "--square", "--extra-size", "160", "--extra-size", "400"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.contains("extra size 400") && result.stdoutText.contains("1-IMG_100-160.jpg"), "\(result.stdoutText)")
        let manifest = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as? [String: Any])
        #expect((manifest["rules"] as? [String: Any])?["extraSides"] as? [Int] == [400, 160])
        let images = try #require(manifest["images"] as? [[String: Any]])
        for (index, image) in images.enumerated() {
            let extras = try #require(image["extras"] as? [[String: Any]])
            #expect(extras.map { $0["output"] as? String } == ["\(index + 1)-IMG_10\(index)-400.jpg", "\(index + 1)-IMG_10\(index)-160.jpg"])
            for extra in extras {
                let bytes = [UInt8](try Data(contentsOf: out.appendingPathComponent(extra["output"] as! String)))
                let info = try ImageCodecs.readInfo(bytes)
                #expect(info.width == extra["side"] as? Int && info.height == info.width && bytes.count == extra["bytes"] as? Int)
                #expect(extra["data"] == nil)
            }
        }
        let twice = try CLI.run(["prepare"] + inputs + ["--out", out.path, "--extra-size", "160", "--extra-size", "160"])
        #expect(twice.status == 2 && twice.stderrText.contains("twice"), "\(twice.stderrText)")
    }

    @Test func fivePhotosWithManifestAndRegistrationBody() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try Self.photos(in: folder)
        let params = folder.appendingPathComponent("product.json")
        try Data(#"{"title":"Lamp","price":12000}"#.utf8).write(to: params)
        let out = folder.appendingPathComponent("ready")
        let body = folder.appendingPathComponent("body.bin")
        let result = try CLI.run(["prepare"] + inputs + ["--out", out.path, "--square", "--budget", "200KiB",
                                                         "--multipart", body.path, "--params", params.path])
        #expect(result.status == 0, "\(result.stderrText)")
        let contentType = try #require(result.stdoutText.split(separator: "\n").last.map(String.init))
        #expect(contentType.hasPrefix("Content-Type: multipart/form-data; boundary="))

        let manifest = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as? [String: Any])
        let images = try #require(manifest["images"] as? [[String: Any]])
        try #require(images.count == 5)
        for (index, image) in images.enumerated() {
            let name = try #require(image["output"] as? String)
            #expect(name == "\(index + 1)-IMG_10\(index).jpg")
            let bytes = [UInt8](try Data(contentsOf: out.appendingPathComponent(name)))
            #expect(bytes.count <= 200 * 1024 && bytes.count == image["bytes"] as? Int)
            // Square; noise this busy does not fit 200 KiB at 1200 px even at quality 50, so it shrinks.
            let side = try #require(image["width"] as? Int)
            #expect(image["height"] as? Int == side && side <= 1200 && side >= 600)
            #expect(!PhonePhoto.markers(bytes).contains(0xE1) && !PhonePhoto.contains(bytes, PhonePhoto.cameraMake))
            #expect((image["steps"] as? [Any])?.isEmpty == false && image["quality"] is Int)
        }

        let script = TestPaths.packageRoot.appendingPathComponent("Tests/UploadPreparationTests/Scripts/read_multipart.py").path
        let parsed = try ChildProcess.run("python3", [script, String(contentType.dropFirst("Content-Type: ".count)), body.path], timeoutSeconds: 60)
        #expect(parsed.status == 0, "\(parsed.stderrText)")
        let parts = parsed.stdoutText.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(parts.map { $0["name"] as? String } == ["params"] + Array(repeating: "images", count: 5))
        for (part, image) in zip(parts.dropFirst(), images) {
            let file = out.appendingPathComponent(image["output"] as! String)
            #expect(part["sha256"] as? String == SHA256.hex([UInt8](try Data(contentsOf: file))))
        }

        let quiet = try CLI.run(["prepare"] + inputs.prefix(1) + ["--out", out.path, "--multipart", body.path, "--params", params.path, "--quiet"])
        #expect(quiet.status == 0 && quiet.stdoutText.hasPrefix("Content-Type: multipart/form-data; boundary=") && quiet.stdoutText.split(separator: "\n").count == 1)
    }

    /// Refusals write nothing: six images (refused before any file is read: the sixth does not even
    /// exist), one corrupt image among five, an output that cannot be written.
    @Test func refusalsWriteNothing() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try Self.photos(in: folder)
        let out = folder.appendingPathComponent("ready")

        let six = try CLI.run(["prepare"] + inputs + [folder.appendingPathComponent("missing.jpg").path, "--out", out.path])
        #expect(six.status == 1)
        #expect(six.stderrText.contains("too_many_images"), "\(six.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))

        let broken = folder.appendingPathComponent("broken.jpg")
        let whole = try Data(contentsOf: URL(fileURLWithPath: inputs[2]))
        try whole.prefix(whole.count * 2 / 3).write(to: broken)
        var withBroken = inputs
        withBroken[2] = broken.path
        let corrupt = try CLI.run(["prepare"] + withBroken + ["--out", out.path])
        #expect(corrupt.status == 1)
        #expect(corrupt.stderrText.contains("truncated_image: image 3 (\(broken.path))"), "\(corrupt.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))

        // The images could be written, the body could not: neither is left behind.
        let params = folder.appendingPathComponent("p.json")
        try Data("{}".utf8).write(to: params)
        let unwritable = try CLI.run(["prepare"] + inputs + ["--out", out.path, "--multipart", inputs[0] + "/body", "--params", params.path])
        #expect(unwritable.status == 1)
        #expect(unwritable.stderrText.contains("write_failed"), "\(unwritable.stderrText)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        #expect(left.isEmpty, "left behind: \(left)")

        let tiny = try CLI.run(["prepare", inputs[0], "--out", out.path, "--budget", "300"])
        #expect(tiny.status == 1 && tiny.stderrText.contains("budget_unreachable"))
    }

    @Test func usageErrors() throws {
        let alone = try CLI.run(["prepare", "a.jpg", "--out", "x", "--multipart", "body.bin"])
        #expect(alone.status == 2 && alone.stderrText.contains("--params"))
        let badBudget = try CLI.run(["prepare", "a.jpg", "--out", "x", "--budget", "lots"])
        #expect(badBudget.status == 2 && badBudget.stderrText.contains("--budget"))
        let none = try CLI.run(["prepare", "--out", "x"])
        #expect(none.status == 1 && none.stderrText.contains("no_images"))
    }
}
