import Foundation
import Yams

/// Every setting thumbd reads, so that a mistyped key in the file or a mistyped THUMBD_* variable
/// stops thumbd by name instead of being ignored while the default silently applies.
/// config/thumbd.yaml documents exactly these (ThumbdConfigTests checks both ways).
public enum KnownSettings {
    /// In config/thumbd.yaml's order, section by section.
    public static let ordered: [String] = [
        "server.listen", "server.admin_token", "server.signing_key", "server.cache_max_age", "server.max_url_length",
        "server.max_size", "server.retry_after", "server.access_log", "server.access_log_format", "server.access_log_path",
        "server.drain_grace", "server.drain_timeout", "server.max_connections", "server.header_timeout",
        "server.keepalive_timeout", "server.body_timeout", "server.send_timeout", "server.inspector",
        "server.activity_sample", "server.heap_trim", "server.log_level", "server.only_presets",
        "server.fallback_image", "server.fallback_status", "server.fallback_max_age",
        "thumbnail.size", "thumbnail.quality", "thumbnail.gravity", "thumbnail.trim_threshold", "thumbnail.decode_headroom",
        "decode.max_megapixels", "decode.max_decode_mib",
        "download.max_concurrent", "download.max_per_host", "download.connect_timeout", "download.timeout",
        "download.max_bytes", "download.max_redirects", "download.allow_insecure_redirects", "download.ca_file",
        "download.allow_networks", "download.allow_hosts", "download.user_agent",
        "sources.unkeyed_query", "sources.confirm_unkeyed_hits",
        "sources.s3.region", "sources.s3.endpoint", "sources.s3.path_style", "sources.s3.access_key_id",
        "sources.s3.secret_access_key", "sources.s3.session_token", "sources.s3.any_bucket",
        "pipeline.max_jobs", "pipeline.worker_threads", "pipeline.keep_originals", "pipeline.avif_speed",
        "prefetch.max_urls_per_job", "prefetch.max_active_jobs", "prefetch.concurrency", "prefetch.keep_finished",
        "prefetch.max_pages",
        "fleet.entry", "fleet.nodes", "fleet.connect_timeout", "fleet.request_timeout",
        "uploads.max_images", "uploads.budget", "uploads.max_side", "uploads.min_side", "uploads.format",
        "uploads.quality_ceiling", "uploads.quality_floor", "uploads.pass_through", "uploads.max_image_bytes",
        "uploads.max_request_bytes", "uploads.max_concurrent",
        "cache.dir", "cache.memory_only", "cache.memory_max_mib", "cache.memory_max_entries", "cache.disk_max_mib",
        "cache.originals_max_mib", "cache.ttl", "cache.fsync", "cache.shared", "cache.shared_timeout",
        "cache.shared_breaker_failures", "cache.shared_breaker_window",
    ]
    public static let keys = Set(ordered)

    /// Maps whose keys are names the operator chooses (a preset, a bucket), each checked by its own
    /// reader (PresetsSection, SourcesSection); file only.
    public static let openMaps: Set<String> = ["presets", "sources.s3.buckets"]

    /// `server`, `sources`, `sources.s3`, …: the maps that hold settings.
    static let sections: Set<String> = Set(keys.union(openMaps).flatMap { key in
        let parts = key.split(separator: ".")
        return (1..<parts.count).map { parts.prefix($0).joined(separator: ".") }
    })

    /// THUMBD_* variables that are not settings: the file's name, and what thumbd's own tests,
    /// benchmarks and fuzz targets read (they run thumbd with their environment).
    public static let otherVariables: Set<String> = [
        ThumbdConfiguration.fileVariable, "THUMBD_CORPORA", "THUMBD_SANITIZER", "THUMBD_CHROMIUM", "THUMBD_SKIMAGE",
        "THUMBD_MEM_BENCH", "THUMBD_FUZZ_TARGET",
    ]
    public static let otherVariablePrefixes = ["THUMBD_OPS_"]

    /// Every variable that sets a setting: THUMBD_SECTION_KEY for each key, and the short names.
    public static var settingVariables: [String: String] {
        var names: [String: String] = [:]
        for key in keys { names[SettingReader.environmentName(key)] = key }
        for (variable, key) in ThumbdConfiguration.environmentAliases { names[variable] = key }
        return names
    }

    /// The unknown THUMBD_* variables of `environment`, each as a message naming the nearest known one.
    static func unknownVariables(in environment: [String: String]) -> [String] {
        let known = settingVariables
        return environment.keys.filter { $0.hasPrefix("THUMBD_") }.sorted().compactMap { variable in
            if known[variable] != nil || otherVariables.contains(variable)
                || otherVariablePrefixes.contains(where: variable.hasPrefix) { return nil }
            let hint = nearest(to: variable, among: known.keys).map { "; did you mean \($0)?" }
                ?? " (config/thumbd.yaml lists every setting, each also THUMBD_SECTION_KEY)"
            return "\(variable) in the environment: no such setting\(hint)"
        }
    }

    /// One key of the settings file: its dotted name (`presets.grid` for an open map's entry), its
    /// line, and whether thumbd knows it.
    struct FileKey: Equatable {
        let name: String
        let line: Int?
        let known: Bool
    }

    /// Every key of a YAML settings document, walked once: what the unknown-key check refuses and
    /// what `thumbd config check` gives as each setting's line.
    static func fileKeys(inYAML text: String, file: String) throws -> [FileKey] {
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch { throw ConfigError("cannot read the configuration file \(file): \(error)") }
        guard let root else { return [] }
        guard let top = root.mapping else { throw ConfigError("the configuration file \(file) must be a map of sections, like server: { listen: 127.0.0.1:8080 }") }
        var found: [FileKey] = []
        func walk(_ mapping: Node.Mapping, prefix: String) {
            for (keyNode, value) in mapping {
                let name = prefix + (keyNode.string ?? "\(keyNode.any)")
                let line = keyNode.mark?.line
                if keys.contains(name) {
                    found.append(FileKey(name: name, line: line, known: true))
                } else if openMaps.contains(name) {
                    found.append(FileKey(name: name, line: line, known: true))
                    for (entry, _) in value.mapping.map(Array.init) ?? [] {
                        found.append(FileKey(name: name + "." + (entry.string ?? "\(entry.any)"), line: entry.mark?.line, known: true))
                    }
                } else if sections.contains(name), let inner = value.mapping {
                    found.append(FileKey(name: name, line: line, known: true))
                    walk(inner, prefix: name + ".")
                } else {
                    // An empty section (`cache:` with nothing under it) is known; anything else is not.
                    found.append(FileKey(name: name, line: line, known: sections.contains(name) && value.null != nil))
                }
            }
        }
        walk(top, prefix: "")
        return found
    }

    /// The unknown keys among `fileKeys`, each as a message with its line and the nearest known key.
    static func unknownKeyMessages(_ fileKeys: [FileKey], file: String) -> [String] {
        fileKeys.filter { !$0.known }.map { key in
            let hint = nearest(to: key.name, among: keys.union(openMaps).union(sections)).map { "; did you mean \($0)?" }
                ?? " (config/thumbd.yaml lists every key)"
            return "\(key.name) in \(file)\(key.line.map { ", line \($0)" } ?? ""): no such key\(hint)"
        }
    }

    /// The known name closest to a mistyped one: within a few edits, or else a key with the same last
    /// part in another section (`cache.disk_max_mib` for `server.disk_max_mib`).
    static func nearest<Names: Sequence<String>>(to name: String, among names: Names) -> String? {
        let candidates = Array(names).sorted()
        let scored = candidates.map { ($0, editDistance(name.lowercased(), $0.lowercased())) }
        if let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, name.count / 5) {
            return best.0
        }
        guard let leaf = name.split(separator: ".").last, name.contains(".") else { return nil }
        let sameLeaf = candidates.filter { $0.split(separator: ".").last == leaf }
        return sameLeaf.count == 1 ? sameLeaf[0] : nil
    }

    /// Levenshtein distance: insertions, deletions and substitutions of bytes.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
