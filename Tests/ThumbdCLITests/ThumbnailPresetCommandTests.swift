import Foundation
import ImageCodecs
import Testing
import TestSupport

/// `thumbd thumbnail --preset`, `--focus` and `--trim` on the command line.
struct ThumbnailPresetCommandTests {
    @Test func presetFromTheConfigurationMakesItsVariant() throws {
        let dir = try CLI.temporaryDirectory()
        let input = dir.appendingPathComponent("in.png")
        // A red box at the right of a white frame: the preset trims to it, so it fills the thumbnail.
        try Data(ImageCodecs.encode(BoxPicture.make(width: 300, height: 200, box: (200, 60, 80, 40)), .png)).write(to: input)
        let config = dir.appendingPathComponent("thumbd.yaml")
        try "presets:\n  strip: { size: 40, fit: contain, trim: true, format: webp, quality: 90 }\n".write(to: config, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out")
        let made = try CLI.run(["thumbnail", input.path, "--out-dir", output.path, "--preset", "strip", "--config", config.path])
        #expect(made.status == 0, "\(made.stderrText)")
        let decoded = try ImageCodecs.decode(TestPaths.bytes(output.appendingPathComponent("in.webp")))
        #expect(decoded.pixels.width == 40 && decoded.pixels.height == 20)
        #expect(BoxPicture.redShare(decoded.pixels) > 0.8)

        let both = try CLI.run(["thumbnail", input.path, "-o", dir.appendingPathComponent("x.jpg").path, "--preset", "strip",
                                "--config", config.path, "--size", "64"])
        #expect(both.status == 2 && both.stderrText.contains("--size"), "\(both.stderrText)")
        let unknown = try CLI.run(["thumbnail", input.path, "-o", dir.appendingPathComponent("x.jpg").path, "--preset", "nope",
                                   "--config", config.path])
        #expect(unknown.status == 2 && unknown.stderrText.contains("strip"), "\(unknown.stderrText)")
    }

    @Test func focusAndTrimFlags() throws {
        let dir = try CLI.temporaryDirectory()
        let input = dir.appendingPathComponent("in.png")
        try Data(ImageCodecs.encode(BoxPicture.make(width: 300, height: 100, box: (250, 30, 40, 40)), .png)).write(to: input)
        let focused = dir.appendingPathComponent("focus.png")
        #expect(try CLI.run(["thumbnail", input.path, "-o", focused.path, "--size", "50", "--focus", "0.9,0.5"]).status == 0)
        #expect(BoxPicture.redShare(try ImageCodecs.decode(TestPaths.bytes(focused)).pixels) > 0.1)
        let both = try CLI.run(["thumbnail", input.path, "-o", focused.path, "--focus", "0.9,0.5", "--gravity", "smart"])
        #expect(both.status == 2 && both.stderrText.contains("not both"), "\(both.stderrText)")
        #expect(try CLI.run(["thumbnail", input.path, "-o", focused.path, "--focus", "1.5,0.5"]).status == 2)
    }
}
