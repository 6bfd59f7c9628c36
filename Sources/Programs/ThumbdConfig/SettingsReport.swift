import Foundation
import ThumbCache

/// What `thumbd config check` prints: every setting with the value in force and where that value
/// came from (the default, a line of the file, or a variable), secrets masked.
public struct SettingsReport: Sendable {
    public struct Row: Sendable, Encodable, Equatable {
        public let key: String
        public let value: String
        public let source: String
    }

    public let configuration: ThumbdConfiguration
    public let rows: [Row]
    /// Problems `serve` would meet after reading its settings (a cache directory it cannot write).
    public let problems: [String]

    /// Never printed: shown as set or not.
    public static let secretKeys: Set<String> = [
        "server.admin_token", "server.signing_key", "sources.s3.secret_access_key", "sources.s3.session_token",
    ]
    public static let maskedValue = "******** (set)"
    public static let unset = "(none)"

    /// Reads the settings as `serve` does (every refusal of `ThumbdConfiguration.load` applies), and
    /// notes where each value came from.
    public static func make(file: String?, environment: [String: String]) async throws -> SettingsReport {
        let recorder = KeyRecorder()
        let configuration = try await ThumbdConfiguration.load(file: file, environment: environment, recorder: recorder)
        let values = recorder.values.withLock { $0 }
        let lines = configuration.fileLines
        let fileName = configuration.file ?? ""

        func source(_ key: String) -> String {
            let short = ThumbdConfiguration.environmentAliases.first { $0.value == key }?.key
            if let short, environment[short] != nil { return short }
            let generic = SettingReader.environmentName(key)
            if environment[generic] != nil { return generic }
            if let line = lines[key] { return "\(fileName):\(line)" }
            return "default"
        }

        var rows = KnownSettings.ordered.map { key -> Row in
            var value = values[key] ?? ""
            if secretKeys.contains(key), !value.isEmpty { value = maskedValue }
            if value.isEmpty { value = unset }
            if key == "cache.dir" {
                let location = configuration.cacheLocation
                let from = location.source == .configuration ? lines[key].map { "\(fileName):\($0)" } ?? location.source.label
                                                              : location.source.label
                return Row(key: key, value: location.url.path, source: from)
            }
            return Row(key: key, value: value, source: source(key))
        }
        for (name, line) in lines.sorted(by: { $0.key < $1.key }) where KnownSettings.openMaps.contains(where: { name.hasPrefix($0 + ".") }) {
            rows.append(Row(key: name, value: "defined", source: "\(fileName):\(line)"))
        }
        return SettingsReport(configuration: configuration, rows: rows, problems: writeProblems(configuration))
    }

    /// Where `serve` writes: the cache directory (made if missing, with its parents) and the access
    /// log (appended to, or made in its folder).
    static func writeProblems(_ configuration: ThumbdConfiguration) -> [String] {
        var problems: [String] = []
        if let cache = configuration.daemon.cacheDirectory {
            problems += folderProblem(cache, what: "the cache directory (cache.dir)", mayBeMade: true).map { [$0] } ?? []
        }
        if let log = configuration.daemon.server.accessLogPath {
            let url = URL(fileURLWithPath: log)
            let what = "the access log (server.access_log_path)"
            if FileManager.default.fileExists(atPath: url.path) {
                if !FileManager.default.isWritableFile(atPath: url.path) { problems.append("\(what): \(url.path) is not writable by this user") }
            } else if let problem = folderProblem(url.deletingLastPathComponent(), what: what, mayBeMade: false) {
                problems.append(problem)
            }
        }
        return problems
    }

    /// Why `url` cannot be a folder this user writes in: it, or the nearest existing folder above it
    /// when it may be made, is a file or not writable.
    private static func folderProblem(_ url: URL, what: String, mayBeMade: Bool) -> String? {
        var probe = url
        while !FileManager.default.fileExists(atPath: probe.path) {
            guard mayBeMade else { return "\(what): the folder \(url.path) does not exist" }
            let parent = probe.deletingLastPathComponent()
            if parent.path == probe.path { break }
            probe = parent
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: probe.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return "\(what): \(probe.path) is a file, not a folder"
        }
        guard FileManager.default.isWritableFile(atPath: probe.path) else {
            return probe.path == url.path ? "\(what): \(url.path) is not writable by this user"
                                          : "\(what): \(url.path) does not exist and \(probe.path) is not writable by this user"
        }
        return nil
    }
}
