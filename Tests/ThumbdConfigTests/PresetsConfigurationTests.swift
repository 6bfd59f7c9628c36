import ThumbVariant
import Foundation
import Testing
import ThumbdConfig
import Thumbnailer
import ThumbPipeline

/// `presets:` and `server.only_presets`: named variants read from the file, each checked as a
/// request's parameters are, with a message naming the preset and the key.
struct PresetsConfigurationTests {
    static let home = ["HOME": "/home/tester"]

    func load(_ yaml: String, _ environment: [String: String] = [:]) async throws -> ThumbdConfiguration {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-presets-\(UUID().uuidString).yaml")
        try yaml.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await ThumbdConfiguration.load(file: url.path, environment: Self.home.merging(environment) { $1 })
    }

    @Test("presets are read into variants; what one leaves out comes from thumbnail:")
    func presetsAreRead() async throws {
        let config = try await load("""
            thumbnail:
              quality: 75
            presets:
              grid: { size: 240, fit: cover, gravity: smart, format: auto }
              zoom-2x: { size: 1200, fit: contain, trim: true, format: webp, quality: 85 }
              pinned_top: { size: 100, focus: "0.5,0.1" }
            """)
        let presets = config.daemon.server.variants.presets
        #expect(presets["grid"] == Variant(size: 240, fit: .cover, gravity: .smart, format: .auto, quality: 75))
        #expect(presets["zoom-2x"] == Variant(size: 1200, fit: .contain, trim: true, format: .webp, quality: 85))
        #expect(presets["pinned_top"]?.gravity == .focus(FocusPoint(x: 0.5, y: 0.1)!))
        #expect(config.daemon.server.variants.onlyPresets == false)
    }

    @Test("a bad preset is a configuration error naming it", arguments: [
        ("Grid: { size: 240 }", "Grid"),
        ("grid: { sise: 240 }", "sise"),
        ("grid: { size: 0 }", "presets.grid"),
        ("grid: { size: big }", "presets.grid.size"),
        ("grid: { gravity: north }", "presets.grid"),
        ("grid: { focus: \"2,0\" }", "presets.grid"),
        ("grid: { gravity: smart, focus: \"0.5,0.5\" }", "not both"),
        ("grid: { trim: maybe }", "presets.grid.trim"),
        ("grid: { format: gif }", "presets.grid"),
        ("grid: 240", "presets.grid"),
    ])
    func badPresets(_ entry: String, _ named: String) async throws {
        var error: ConfigError?
        do { _ = try await load("presets:\n  \(entry)\n") } catch let caught as ConfigError { error = caught }
        #expect(error?.message.contains(named) == true, "\(error?.message ?? "no error")")
    }

    @Test("server.only_presets needs a preset, and is read from the file or the environment")
    func onlyPresets() async throws {
        var error: ConfigError?
        do { _ = try await load("server:\n  only_presets: true\n") } catch let caught as ConfigError { error = caught }
        #expect(error?.message.contains("only_presets") == true)
        let file = "presets:\n  grid: { size: 240 }\n"
        #expect(try await load(file, ["THUMBD_SERVER_ONLY_PRESETS": "true"]).daemon.server.variants.onlyPresets)
        #expect(try await load("server:\n  only_presets: true\n" + file).daemon.server.variants.onlyPresets)
    }
}
