import ThumbVariant
import Configuration
import Foundation
import ImageCore
import Logging
import NetworkGuard
import SystemPackage
import ThumbCache
import ThumbFleet
import ThumbPipeline
import ThumbServer
import Thumbnailer
import UploadPreparation

/// The settings every thumbd command runs with: embedded defaults, overridden by the YAML file
/// (`--config FILE` or THUMBD_CONFIG), overridden by environment variables. Any key `section.key`
/// can be set as THUMBD_SECTION_KEY; the common ones have short names too.
public struct ThumbdConfiguration: Sendable {
    public var daemon = DaemonSettings()
    /// Where the disk cache is, and which setting chose it.
    public var cacheLocation: (url: URL, source: CacheLocation.Source)
    /// The file that was read, if any.
    public var file: String?
    /// The line of each key of that file (`section.key`, `presets.NAME`).
    var fileLines: [String: Int] = [:]

    /// Short environment names for the settings people change most.
    public static let environmentAliases: [String: String] = [
        "THUMBD_LISTEN": "server.listen",
        "THUMBD_ADMIN_TOKEN": "server.admin_token",
        "THUMBD_SIGNING_KEY": "server.signing_key",
        "THUMBD_ALLOW_NETWORKS": "download.allow_networks",
        "THUMBD_ALLOW_HOSTS": "download.allow_hosts",
        "THUMBD_LOG_LEVEL": "server.log_level",
    ]

    public static let fileVariable = "THUMBD_CONFIG"

    public static func load(file explicitFile: String? = nil,
                            environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> ThumbdConfiguration {
        try await load(file: explicitFile, environment: environment, recorder: nil)
    }

    static func load(file explicitFile: String?, environment: [String: String], recorder: KeyRecorder?) async throws -> ThumbdConfiguration {
        let file = explicitFile ?? environment[fileVariable].flatMap { $0.isEmpty ? nil : $0 }
        let fileLines = try refuseUnknownSettings(file: file, environment: environment)
        var providers: [any ConfigProvider] = []
        var aliased: [AbsoluteConfigKey: ConfigValue] = [:]
        for (variable, key) in environmentAliases {
            if let value = environment[variable] {
                aliased[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = ConfigValue(.string(value), isSecret: variable.contains("TOKEN") || variable.contains("KEY"))
            }
        }
        providers.append(InMemoryProvider(name: "environment (short names)", values: aliased))
        providers.append(EnvironmentVariablesProvider(environmentVariables: environment,
                                                      secretsSpecifier: .dynamic { name, _ in name.contains("TOKEN") || name.contains("KEY") })
            .prefixKeys(with: ["thumbd"]))
        if let file {
            guard FileManager.default.fileExists(atPath: file) else {
                throw ConfigError("the configuration file \(file) does not exist")
            }
            do {
                providers.append(try await FileProvider<YAMLSnapshot>(filePath: FilePath(file)))
            } catch {
                throw ConfigError("cannot read the configuration file \(file): \(error)")
            }
        }
        let settings = SettingReader(reader: ConfigReader(providers: providers), recorder: recorder)
        var configuration = try ThumbdConfiguration(settings, file: file, environment: environment)
        configuration.fileLines = fileLines
        return configuration
    }

    /// A mistyped key or variable stops every command that reads settings, before anything is opened:
    /// ignored, it would leave the default in force without a word. Returns the line of each key of
    /// the file (`thumbd config check` names them).
    static func refuseUnknownSettings(file: String?, environment: [String: String]) throws -> [String: Int] {
        var problems = KnownSettings.unknownVariables(in: environment)
        var fileKeys: [KnownSettings.FileKey] = []
        if let file, let text = try? String(contentsOfFile: file, encoding: .utf8) {
            fileKeys = try KnownSettings.fileKeys(inYAML: text, file: file)
            problems += KnownSettings.unknownKeyMessages(fileKeys, file: file)
        }
        guard problems.isEmpty else { throw ConfigError(problems.joined(separator: "\n")) }
        return Dictionary(fileKeys.compactMap { key in key.line.map { (key.name, $0) } }) { first, _ in first }
    }

    init(_ s: SettingReader, file: String?, environment: [String: String]) throws {
        self.file = file
        var d = DaemonSettings()

        // server
        let listen = s.string("server.listen", default: "127.0.0.1:8080")
        (d.server.host, d.server.port) = try Self.parseListen(listen)
        d.server.adminToken = s.string("server.admin_token")
        d.server.signingKey = s.string("server.signing_key")
        d.server.cacheMaxAgeSeconds = try s.int("server.cache_max_age", default: 86_400, range: 0...31_536_000)
        d.server.maxURLLength = try s.int("server.max_url_length", default: 2048, range: 64...65_536)
        d.server.variants.maxSize = try s.int("server.max_size", default: 2048, range: 1...ThumbnailRequest.sizeRange.upperBound)
        d.server.retryAfterSeconds = try s.int("server.retry_after", default: 1, range: 1...3600)
        d.server.accessLog = try s.bool("server.access_log", default: true)
        d.server.accessLogFormat = try s.choice("server.access_log_format", default: .text, AccessLogFormat.self)
        d.server.accessLogPath = s.string("server.access_log_path").flatMap { $0.isEmpty ? nil : $0 }
        d.server.drainGrace = try s.seconds("server.drain_grace", default: 5, range: 0...600)
        d.server.drainTimeout = try s.seconds("server.drain_timeout", default: 20, range: 0...3600)
        d.server.maxConnections = try s.int("server.max_connections", default: 8192, range: 16...1_000_000)
        d.server.headerTimeout = try s.seconds("server.header_timeout", default: 15, range: 0.1...3600)
        d.server.keepAliveTimeout = try s.seconds("server.keepalive_timeout", default: 75, range: 0.1...86_400)
        d.server.bodyTimeout = try s.seconds("server.body_timeout", default: 60, range: 0.1...3600)
        d.server.sendTimeout = try s.seconds("server.send_timeout", default: 60, range: 0.1...3600)
        d.server.inspector = try s.bool("server.inspector", default: true)
        d.server.activitySampleInterval = try s.seconds("server.activity_sample", default: 10, range: 1...600)
        d.server.heapTrimInterval = try s.seconds("server.heap_trim", default: 30, range: 0...3600)
        let level = s.string("server.log_level", default: "info").lowercased()
        guard let logLevel = Logger.Level(rawValue: level) else {
            throw s.invalid("server.log_level", level, "one of " + Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
        }
        d.logLevel = logLevel

        // thumbnail defaults
        d.server.variants.size = try s.int("thumbnail.size", default: VariantDefaults().size, range: 1...d.server.variants.maxSize)
        d.server.variants.quality = try s.int("thumbnail.quality", default: EncodeSettings.defaultQuality, range: EncodeSettings.qualityRange)
        let gravityText = s.string("thumbnail.gravity", default: Gravity.smart.description)
        guard let gravity = Gravity(gravityText) else { throw s.invalid("thumbnail.gravity", gravityText, Gravity.spellings) }
        d.server.variants.gravity = gravity
        d.uploads.gravity = gravity
        d.pipeline.trimThreshold = try s.int("thumbnail.trim_threshold", default: ThumbnailRequest.defaultTrimThreshold,
                                             range: ThumbnailRequest.trimThresholdRange)
        d.pipeline.decodeHeadroom = try s.double("thumbnail.decode_headroom", default: ThumbnailRequest.defaultDecodeHeadroom, range: 1...8)

        // presets: after the thumbnail defaults, which fill what a preset leaves out
        let presets = try PresetsSection.read(file: file, defaults: d.server.variants)
        d.server.variants.presets = presets.variants
        d.server.variants.onlyPresets = try s.bool("server.only_presets", default: false)
        if d.server.variants.onlyPresets && d.server.variants.presets.isEmpty {
            throw ConfigError("server.only_presets is on but no presets are configured: every thumbnail would be refused")
        }

        // decode
        let megapixels = try s.double("decode.max_megapixels", default: 50, range: 0.01...1000)
        let decodeMiB = try s.int("decode.max_decode_mib", default: 512, range: 16...65_536)
        d.pipeline.decodeLimits = DecodeLimits(maxPixels: Int(megapixels * 1_000_000), maxDecodeBytes: decodeMiB << 20)

        // the fallback picture: read and decoded now, so a bad path stops the start
        func picture(_ path: String, _ key: String) throws -> FallbackPicture {
            do { return try FallbackPicture(path: path, limits: d.pipeline.decodeLimits) } catch { throw ConfigError("\(key): \(error)") }
        }
        d.server.fallback.picture = try s.string("server.fallback_image").flatMap { $0.isEmpty ? nil : try picture($0, "server.fallback_image") }
        for (name, path) in presets.fallbackImages {
            d.server.fallback.presetPictures[name] = try picture(path, "presets.\(name).\(PresetsSection.fallbackKey)")
        }
        d.server.fallback.status = try s.int("server.fallback_status", default: 200, range: 200...599)
        guard FallbackSettings.isAllowedStatus(d.server.fallback.status) else {
            throw s.invalid("server.fallback_status", String(d.server.fallback.status), "200, 203, or a 4xx or 5xx status (a picture needs a status that carries a body)")
        }
        d.server.fallback.maxAgeSeconds = try s.int("server.fallback_max_age", default: 60, range: 0...31_536_000)

        // download
        d.download.maxConcurrent = try s.int("download.max_concurrent", default: 16, range: 1...1024)
        d.download.maxPerHost = try s.int("download.max_per_host", default: 6, range: 1...1024)
        d.download.connectTimeout = try s.seconds("download.connect_timeout", default: 5, range: 0.05...600)
        d.download.totalTimeout = try s.seconds("download.timeout", default: 30, range: 0.05...3600)
        d.download.maxBytes = try s.int("download.max_bytes", default: 20_000_000, range: 1024...2_000_000_000)
        d.download.maxRedirects = try s.int("download.max_redirects", default: 5, range: 0...20)
        d.download.allowInsecureRedirects = try s.bool("download.allow_insecure_redirects", default: false)
        if let caFile = s.string("download.ca_file") {
            // Checked here: otherwise every https download would fail later, as origin_tls.
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw s.invalid("download.ca_file", caFile, "a readable PEM file of certificate authorities")
            }
            d.download.caFile = caFile
        }
        d.download.userAgent = s.string("download.user_agent", default: "thumbd/1.0")
        var networks: [CIDR] = []
        if let text = s.string("download.allow_networks") {
            do { networks = try CIDR.parseList(text) } catch {
                throw s.invalid("download.allow_networks", error.entry, "a comma-separated list of CIDRs like 127.0.0.0/8")
            }
        }
        var hosts: [HostPattern]?
        if let text = s.string("download.allow_hosts") {
            do { hosts = try HostPattern.parseList(text) } catch {
                throw s.invalid("download.allow_hosts", error.entry, "a comma-separated list of host names or *.domain patterns")
            }
        }
        d.download.policy = AddressPolicy(allowNetworks: networks, allowHosts: hosts)
        d.download.s3 = try SourcesSection.read(s, file: file, environment: environment)
        if let text = s.string("sources.unkeyed_query") {
            do { d.pipeline.unkeyedQuery = text.lowercased() == "none" ? .none : try UnkeyedQuery(list: text) } catch {
                throw s.invalid("sources.unkeyed_query", text, "a comma-separated list of query parameter names (X-Amz-* matches a prefix), or none")
            }
        }
        d.pipeline.confirmUnkeyedHits = try s.bool("sources.confirm_unkeyed_hits", default: true)

        // pipeline
        d.pipeline.maxJobs = try s.int("pipeline.max_jobs", default: 256, range: 1...100_000)
        d.pipeline.workerThreads = try s.int("pipeline.worker_threads", default: 0, range: 0...256)
        d.pipeline.keepOriginals = try s.bool("pipeline.keep_originals", default: true)
        d.pipeline.avifSpeed = try s.int("pipeline.avif_speed", default: EncodeSettings.defaultAVIFSpeed, range: 0...10)

        // prefetch
        d.prefetch.maxURLsPerJob = try s.int("prefetch.max_urls_per_job", default: 1000, range: 1...1_000_000)
        d.prefetch.maxActiveJobs = try s.int("prefetch.max_active_jobs", default: 8, range: 1...1024)
        d.prefetch.concurrency = try s.int("prefetch.concurrency", default: 16, range: 1...1024)
        d.prefetch.keepFinished = try s.seconds("prefetch.keep_finished", default: 600, range: 0...604_800)
        d.prefetch.maxPages = try s.int("prefetch.max_pages", default: 50, range: 1...10_000)

        // uploads
        d.uploads.maxImages = try s.int("uploads.max_images", default: 5, range: UploadSettings.imageCountRange)
        d.uploads.budgetBytes = try s.bytes("uploads.budget", default: 300 * 1024, range: 1...1_000_000_000)
        d.uploads.maxSide = try s.int("uploads.max_side", default: 1200, range: UploadSettings.sideRange)
        d.uploads.minSide = try s.int("uploads.min_side", default: 64, range: UploadSettings.sideRange)
        d.uploads.format = try s.choice("uploads.format", default: .jpeg, UploadSettings.OutputFormat.self)
        d.uploads.qualityCeiling = try s.int("uploads.quality_ceiling", default: 92, range: UploadSettings.qualityRange)
        d.uploads.qualityFloor = try s.int("uploads.quality_floor", default: 50, range: UploadSettings.qualityRange)
        d.uploads.passThrough = try s.bool("uploads.pass_through", default: true)
        d.uploads.maxImageBytes = try s.bytes("uploads.max_image_bytes", default: 20_000_000, range: 1024...2_000_000_000)
        d.maxUploadRequestBytes = try s.bytes("uploads.max_request_bytes", default: 60_000_000, range: 1024...10_000_000_000)
        d.maxConcurrentUploads = try s.int("uploads.max_concurrent", default: 4, range: 1...1024)
        d.uploads.limits = d.pipeline.decodeLimits
        do { try d.uploads.validate() } catch { throw ConfigError("uploads: \(error.message)") }

        // fleet
        if let text = s.string("fleet.entry"), !text.isEmpty {
            guard let entry = FleetSettings.baseURL(text) else {
                throw s.invalid("fleet.entry", text, "the balancer's base URL, like http://127.0.0.1:8080")
            }
            d.fleet.entry = entry
        }
        if let text = s.string("fleet.nodes"), !text.isEmpty {
            do { d.fleet.nodes = try FleetSettings.parseNodes(text) } catch {
                throw s.invalid("fleet.nodes", error.entry, "a comma-separated list of node base URLs like http://10.0.0.1:8080")
            }
        }
        d.fleet.connectTimeout = try s.seconds("fleet.connect_timeout", default: 2, range: 0.05...600)
        d.fleet.requestTimeout = try s.seconds("fleet.request_timeout", default: 60, range: 0.05...3600)

        // cache
        cacheLocation = CacheLocation.resolution(configured: s.string("cache.dir"), environment: environment)
        let memoryOnly = try s.bool("cache.memory_only", default: false)
        d.cacheDirectory = memoryOnly ? nil : cacheLocation.url
        d.memoryLimits = MemoryCacheLimits(
            maxBytes: try s.int("cache.memory_max_mib", default: MemoryCacheLimits.defaultMaxBytes >> 20, range: 0...1_048_576) << 20,
            maxEntries: try s.int("cache.memory_max_entries", default: MemoryCacheLimits.defaultMaxEntries, range: 0...100_000_000))
        d.diskLimits.maxBytes = try s.int("cache.disk_max_mib", default: DiskCacheLimits.defaultMaxBytes >> 20, range: 1...16_777_216) << 20
        d.diskLimits.originalsMaxBytes = try s.int("cache.originals_max_mib", default: DiskCacheLimits.defaultOriginalsMaxBytes >> 20,
                                                   range: 0...16_777_216) << 20
        d.diskLimits.ttl = try s.seconds("cache.ttl", default: DiskCacheLimits.defaultTTL.secondsValue, range: 1...315_360_000)
        d.diskLimits.fsync = try s.choice("cache.fsync", default: d.diskLimits.fsync, FsyncPolicy.self)
        let sharedTimeout = try s.seconds("cache.shared_timeout", default: 2, range: 0.05...60)
        let breakerFailures = try s.int("cache.shared_breaker_failures", default: 3, range: 1...1000)
        let breakerWindow = try s.seconds("cache.shared_breaker_window", default: 5, range: 0.1...3600)
        if let text = s.string("cache.shared") {
            do { d.pipeline.shared = try SharedTierSettings(text) } catch {
                throw s.invalid("cache.shared", text, "s3://BUCKET[/PREFIX] (\(error.message))")
            }
            d.pipeline.shared?.readTimeout = sharedTimeout
            d.pipeline.shared?.breakerFailures = breakerFailures
            d.pipeline.shared?.breakerWindow = breakerWindow
        }
        d.download.s3.reservedBucket = d.pipeline.shared?.bucket
        daemon = d
    }

    /// `host:port`, `[v6]:port`, or `:port` (all interfaces is spelled out: 0.0.0.0:port).
    static func parseListen(_ text: String) throws -> (String, Int) {
        let message = "setting server.listen (or THUMBD_LISTEN) is \"\(text)\"; it must be host:port, e.g. 127.0.0.1:8080"
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw ConfigError(message)
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ConfigError(message) }
        return (host, port)
    }
}
