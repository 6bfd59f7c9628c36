import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which directory holds the disk cache.
///
/// In order: an explicit choice (a command-line flag), `THUMBD_CACHE_DIR`, the configuration
/// file's value, `$XDG_CACHE_HOME/thumbd` (when that is an absolute path, as the XDG spec asks),
/// then `~/.cache/thumbd`. `~` at the start of a path means the home directory; relative paths
/// are taken from the current directory.
public enum CacheLocation {
    public static let environmentVariable = "THUMBD_CACHE_DIR"

    public enum Source: String, Sendable, Codable {
        case explicit, environment, configuration, xdgCacheHome, home

        /// For messages: "THUMBD_CACHE_DIR", "the configuration file", …
        public var label: String {
            switch self {
            case .explicit: return "the command line"
            case .environment: return CacheLocation.environmentVariable
            case .configuration: return "the configuration file"
            case .xdgCacheHome: return "XDG_CACHE_HOME"
            case .home: return "the default (~/.cache/thumbd)"
            }
        }
    }

    public static func resolve(explicit: String? = nil, configured: String? = nil,
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        resolution(explicit: explicit, configured: configured, environment: environment).url
    }

    /// The directory and where the choice came from.
    public static func resolution(explicit: String? = nil, configured: String? = nil,
                                  environment: [String: String] = ProcessInfo.processInfo.environment) -> (url: URL, source: Source) {
        let home = homeDirectory(environment)
        func directory(_ path: String) -> URL {
            var expanded = path
            if expanded == "~" {
                expanded = home
            } else if expanded.hasPrefix("~/") {
                expanded = home + expanded.dropFirst(1)
            }
            return URL(fileURLWithPath: expanded, isDirectory: true).standardizedFileURL
        }
        if let explicit = explicit?.nonEmpty { return (directory(explicit), .explicit) }
        if let fromEnvironment = environment[environmentVariable]?.nonEmpty { return (directory(fromEnvironment), .environment) }
        if let configured = configured?.nonEmpty { return (directory(configured), .configuration) }
        if let xdg = environment["XDG_CACHE_HOME"]?.nonEmpty, xdg.hasPrefix("/") {
            return (directory(xdg).appendingPathComponent("thumbd", isDirectory: true), .xdgCacheHome)
        }
        return (directory(home).appendingPathComponent(".cache/thumbd", isDirectory: true), .home)
    }

    /// `$HOME`, else the password database's entry, else a per-user folder under /tmp.
    static func homeDirectory(_ environment: [String: String]) -> String {
        if let home = environment["HOME"]?.nonEmpty { return home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            let path = String(cString: directory)
            if !path.isEmpty { return path }
        }
        return "/tmp/thumbd-\(getuid())"
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
