import Foundation
import NetworkGuard
import TestSupport
import Testing
import ThumbCache
import ThumbdConfig
import Thumbnailer

@Suite("Settings: embedded defaults, the YAML file, environment variables")
struct ThumbdConfigurationTests {
    static let documented = TestPaths.packageRoot.appendingPathComponent("config/thumbd.yaml").path
    static let home = ["HOME": "/home/tester"]

    @Test("Embedded defaults: loopback listener, the documented limits")
    func defaults() async throws {
        let config = try await ThumbdConfiguration.load(environment: Self.home)
        let d = config.daemon
        #expect(d.server.host == "127.0.0.1")
        #expect(d.server.port == 8080)
        #expect(d.server.adminToken == nil)
        #expect(d.server.signingKey == nil)
        #expect(d.download.maxConcurrent == 16)
        #expect(d.download.maxPerHost == 6)
        #expect(d.download.connectTimeout == .seconds(5))
        #expect(d.download.totalTimeout == .seconds(30))
        #expect(d.download.maxBytes == 20_000_000)
        #expect(d.download.maxRedirects == 5)
        #expect(d.download.allowInsecureRedirects == false)
        #expect(d.download.caFile == nil)
        #expect(d.download.policy.allowNetworks.isEmpty)
        #expect(d.pipeline.decodeLimits.maxPixels == 50_000_000)
        #expect(d.server.variants.gravity == .smart && d.uploads.gravity == .smart)
        #expect(config.cacheLocation.url.path == "/home/tester/.cache/thumbd")
        #expect(config.file == nil)
    }

    @Test("config/thumbd.yaml documents exactly the embedded defaults")
    func documentedFileMatchesDefaults() async throws {
        let fromFile = try await ThumbdConfiguration.load(file: Self.documented, environment: Self.home)
        let embedded = try await ThumbdConfiguration.load(environment: Self.home)
        #expect(String(describing: fromFile.daemon) == String(describing: embedded.daemon))
        #expect(fromFile.cacheLocation.url == embedded.cacheLocation.url)
        #expect(fromFile.file == Self.documented)
    }

    @Test("Environment variables override the file; short names and THUMBD_SECTION_KEY both work")
    func environmentOverridesFile() async throws {
        let file = try write("""
            server:
              listen: 127.0.0.1:9000
              admin_token: from-file
            download:
              timeout: 12
              max_per_host: 3
            cache:
              dir: /var/cache/from-file
            """)
        let fileOnly = try await ThumbdConfiguration.load(file: file, environment: Self.home)
        #expect(fileOnly.daemon.server.port == 9000)
        #expect(fileOnly.daemon.server.adminToken == "from-file")
        #expect(fileOnly.daemon.download.totalTimeout == .seconds(12))
        #expect(fileOnly.daemon.download.maxPerHost == 3)
        #expect(fileOnly.cacheLocation.url.path == "/var/cache/from-file")
        #expect(fileOnly.cacheLocation.source == .configuration)

        var environment = Self.home
        environment["THUMBD_LISTEN"] = "[::1]:7000"
        environment["THUMBD_ADMIN_TOKEN"] = "from-env"
        environment["THUMBD_CACHE_DIR"] = "/tmp/from-env"
        environment["THUMBD_ALLOW_NETWORKS"] = "127.0.0.0/8, 10.1.0.0/16"
        environment["THUMBD_DOWNLOAD_TIMEOUT"] = "2.5"
        let both = try await ThumbdConfiguration.load(file: file, environment: environment)
        #expect(both.daemon.server.host == "::1")
        #expect(both.daemon.server.port == 7000)
        #expect(both.daemon.server.adminToken == "from-env")
        #expect(both.daemon.download.totalTimeout == .milliseconds(2500))
        #expect(both.daemon.download.maxPerHost == 3)
        #expect(both.cacheLocation.url.path == "/tmp/from-env")
        #expect(both.cacheLocation.source == .environment)
        #expect(both.daemon.download.policy.check(IPAddress("127.0.0.2")!) == .allowed)
        #expect(both.daemon.download.policy.check(IPAddress("10.1.2.3")!) == .allowed)
        #expect(both.daemon.download.policy.check(IPAddress("10.2.0.1")!) != .allowed)
        #expect(both.daemon.download.policy.check(IPAddress("169.254.169.254")!) != .allowed)
    }

    @Test("A value that does not parse stops loading, naming the key", arguments: [
        ("THUMBD_LISTEN", "localhost", "server.listen"),
        ("THUMBD_LISTEN", "127.0.0.1:99999", "server.listen"),
        ("THUMBD_DOWNLOAD_MAX_PER_HOST", "many", "download.max_per_host"),
        ("THUMBD_DOWNLOAD_MAX_CONCURRENT", "0", "download.max_concurrent"),
        ("THUMBD_ALLOW_NETWORKS", "10.0.0.0/33", "download.allow_networks"),
        ("THUMBD_SERVER_ACCESS_LOG", "perhaps", "server.access_log"),
        ("THUMBD_CACHE_FSYNC", "sometimes", "cache.fsync"),
        ("THUMBD_LOG_LEVEL", "loud", "server.log_level"),
        ("THUMBD_SERVER_ACTIVITY_SAMPLE", "0", "server.activity_sample"),
        ("THUMBD_SERVER_HEAP_TRIM", "-1", "server.heap_trim"),
        ("THUMBD_DOWNLOAD_ALLOW_INSECURE_REDIRECTS", "sometimes", "download.allow_insecure_redirects"),
        ("THUMBD_DOWNLOAD_CA_FILE", "/nonexistent/ca.pem", "download.ca_file"),
        ("THUMBD_THUMBNAIL_GRAVITY", "north", "thumbnail.gravity"),
        ("THUMBD_THUMBNAIL_TRIM_THRESHOLD", "0", "thumbnail.trim_threshold"),
        ("THUMBD_THUMBNAIL_TRIM_THRESHOLD", "255", "thumbnail.trim_threshold"),
        ("THUMBD_THUMBNAIL_TRIM_THRESHOLD", "soft", "thumbnail.trim_threshold"),
    ])
    func invalidValues(_ variable: String, _ value: String, _ key: String) async throws {
        var environment = Self.home
        environment[variable] = value
        let error = await #expect(throws: ConfigError.self) {
            _ = try await ThumbdConfiguration.load(environment: environment)
        }
        #expect(error?.message.contains(key) == true, "\(error?.message ?? "")")
    }

    @Test("thumbnail.gravity sets the thumbnails' and the uploads' default crop")
    func gravitySetting() async throws {
        var environment = Self.home
        environment["THUMBD_THUMBNAIL_GRAVITY"] = "center"
        let config = try await ThumbdConfiguration.load(environment: environment)
        #expect(config.daemon.server.variants.gravity == .center)
        #expect(config.daemon.uploads.gravity == .center)
    }

    @Test("thumbnail.trim_threshold sets how far from the border colour trimming still takes off")
    func trimThresholdSetting() async throws {
        #expect(try await ThumbdConfiguration.load(environment: Self.home).daemon.pipeline.trimThreshold == ThumbnailRequest.defaultTrimThreshold)
        var environment = Self.home
        environment["THUMBD_THUMBNAIL_TRIM_THRESHOLD"] = "40"
        #expect(try await ThumbdConfiguration.load(environment: environment).daemon.pipeline.trimThreshold == 40)
    }

    @Test("download.allow_insecure_redirects and download.ca_file are read")
    func redirectAndTrustSettings() async throws {
        let caFile = try write("not read until a download needs it")
        var environment = Self.home
        environment["THUMBD_DOWNLOAD_ALLOW_INSECURE_REDIRECTS"] = "true"
        environment["THUMBD_DOWNLOAD_CA_FILE"] = caFile
        let config = try await ThumbdConfiguration.load(environment: environment)
        #expect(config.daemon.download.allowInsecureRedirects)
        #expect(config.daemon.download.caFile == caFile)
    }

    @Test("A missing or malformed file is refused with its path")
    func badFiles() async throws {
        let missing = await #expect(throws: ConfigError.self) {
            _ = try await ThumbdConfiguration.load(file: "/nonexistent/thumbd.yaml", environment: Self.home)
        }
        #expect(missing?.message.contains("/nonexistent/thumbd.yaml") == true)
        let broken = try write("server: [unclosed\n  listen: :")
        let malformed = await #expect(throws: ConfigError.self) {
            _ = try await ThumbdConfiguration.load(file: broken, environment: Self.home)
        }
        #expect(malformed?.message.contains(broken) == true)
    }

    private func write(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-config-\(UUID().uuidString).yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}
