import Foundation
import ImageCodecs
import ImageCore
import Testing
import ThumbdConfig

/// `server.fallback_image` (and THUMBD_SERVER_FALLBACK_IMAGE), `fallback_status`, `fallback_max_age`
/// and a preset's `fallback_image`: the file is read and decoded when the settings are loaded.
struct FallbackConfigurationTests {
    static let home = ["HOME": "/home/tester"]

    func load(_ yaml: String, _ environment: [String: String] = [:]) async throws -> ThumbdConfiguration {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-fallback-\(UUID().uuidString).yaml")
        try yaml.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await ThumbdConfiguration.load(file: url.path, environment: Self.home.merging(environment) { $1 })
    }

    static func picture() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-fallback-\(UUID().uuidString).png").path
        try Data(try ImageCodecs.encode(PixelBuffer(width: 8, height: 8), .png)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("the picture, its status and max-age are read; a preset names its own; the environment spelling works")
    func settingsAreRead() async throws {
        let file = try Self.picture()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let config = try await load("""
            server:
              fallback_image: \(file)
              fallback_status: 404
              fallback_max_age: 30
            presets:
              avatar: { size: 96, fallback_image: \(file) }
            """)
        let fallback = config.daemon.server.fallback
        #expect(fallback.picture?.path == file && fallback.status == 404 && fallback.maxAgeSeconds == 30)
        #expect(fallback.presetPictures["avatar"]?.path == file)
        #expect(config.daemon.server.variants.presets["avatar"]?.width == 96)
        let defaults = try await load("server:\n  listen: 127.0.0.1:8080\n")
        #expect(defaults.daemon.server.fallback.picture == nil && defaults.daemon.server.fallback.status == 200
                && defaults.daemon.server.fallback.maxAgeSeconds == 60)
        let fromEnvironment = try await load("server:\n  listen: 127.0.0.1:8080\n", ["THUMBD_SERVER_FALLBACK_IMAGE": file])
        #expect(fromEnvironment.daemon.server.fallback.picture?.path == file)
    }

    @Test("mistakes stop the load, naming the key", arguments: [
        ("server:\n  fallback_image: /nonexistent/thumbd.png\n", "server.fallback_image"),
        ("server:\n  fallback_status: 302\n", "server.fallback_status"),
        ("server:\n  fallback_status: 204\n", "server.fallback_status"),
        ("server:\n  fallback_max_age: -1\n", "server.fallback_max_age"),
        ("presets:\n  avatar: { size: 96, fallback_image: /nonexistent/a.png }\n", "presets.avatar.fallback_image"),
        ("presets:\n  avatar: { size: 96, fallback_image: 7 }\n", "presets.avatar.fallback_image"),
    ])
    func mistakes(_ yaml: String, _ key: String) async throws {
        var error: ConfigError?
        do { _ = try await load(yaml) } catch let caught as ConfigError { error = caught }
        #expect(error?.message.contains(key) == true, "\(error?.message ?? "no error")")
    }
}
