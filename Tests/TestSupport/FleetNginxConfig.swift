import Foundation

/// The shipped `config/nginx/thumbd.conf`, run as it is by the fleet tests and `thumbd-bench fleet`:
/// only its addresses and paths change (nodes, listen port, the edge cache's directory), and the
/// edge cache's include is uncommented when asked for. The rest of nginx's configuration (pid,
/// logs, temp folders) is written into `directory`, so nginx runs without touching /etc or /var.
public struct FleetNginxConfig {
    public static var shippedFolder: URL { TestPaths.packageRoot.appendingPathComponent("config/nginx") }

    public var listenPort: Int
    public var nodePorts: [Int]
    public var directory: URL
    public var edgeCache = false
    /// nginx's access log, as operators run it (`combined` to a file), or off.
    public var accessLog = false
    public var workers = 2

    public init(listenPort: Int, nodePorts: [Int], directory: URL) {
        self.listenPort = listenPort
        self.nodePorts = nodePorts
        self.directory = directory
    }

    public enum RenderError: Error, CustomStringConvertible {
        case missing(String)
        public var description: String {
            switch self { case .missing(let what): "config/nginx/thumbd.conf no longer has \(what); update FleetNginxConfig" }
        }
    }

    /// How long nginx skips a node after it failed (the shipped upstream's `fail_timeout`): how
    /// long a restarted node waits for its traffic.
    public static func shippedFailTimeout() throws -> Duration {
        let shipped = try String(contentsOf: shippedFolder.appendingPathComponent("thumbd.conf"), encoding: .utf8)
        guard let range = shipped.range(of: #"fail_timeout=\d+s"#, options: .regularExpression),
              let seconds = Int(shipped[range].dropFirst("fail_timeout=".count).dropLast()) else {
            throw RenderError.missing("a fail_timeout=Ns on its servers")
        }
        return .seconds(seconds)
    }

    /// The shipped file with this fleet's addresses.
    public func fleetFile() throws -> String {
        let shipped = try String(contentsOf: Self.shippedFolder.appendingPathComponent("thumbd.conf"), encoding: .utf8)
        var lines: [String] = []
        var nodesWritten = false
        for line in shipped.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("server 127.0.0.1:808") {
                // The three example nodes become this fleet's, with the same parameters.
                guard !nodesWritten else { continue }
                nodesWritten = true
                let parameters = trimmed.split(separator: " ").dropFirst(2).joined(separator: " ")
                for port in nodePorts { lines.append("    server 127.0.0.1:\(port) \(parameters)") }
            } else if trimmed == "listen 8080;" {
                lines.append("    listen 127.0.0.1:\(listenPort);")
            } else if trimmed.hasPrefix("proxy_cache_path /var/cache/nginx/thumbd-edge ") {
                lines.append(line.replacingOccurrences(of: "/var/cache/nginx/thumbd-edge", with: directory.appendingPathComponent("edge").path))
            } else if trimmed == "# include /etc/nginx/thumbd-edge-cache.conf;" {
                if edgeCache { lines.append("        include \(Self.shippedFolder.appendingPathComponent("thumbd-edge-cache.conf").path);") }
            } else {
                lines.append(line)
            }
        }
        let text = lines.joined(separator: "\n")
        for (needle, what) in [("listen 127.0.0.1:", "`listen 8080;`"), ("server 127.0.0.1:", "the example nodes"),
                               (directory.appendingPathComponent("edge").path, "the edge cache's proxy_cache_path")] where !text.contains(needle) {
            throw RenderError.missing(what)
        }
        if edgeCache, !text.contains("thumbd-edge-cache.conf;") { throw RenderError.missing("the edge cache's include line") }
        return text
    }

    /// Writes nginx.conf (and the fleet file beside it) into `directory`; returns nginx.conf's path.
    public func write() throws -> String {
        let temp = directory.appendingPathComponent("temp").path
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: true)
        let fleet = directory.appendingPathComponent("thumbd.conf").path
        try fleetFile().write(toFile: fleet, atomically: true, encoding: .utf8)
        let log = accessLog ? "access_log \(directory.appendingPathComponent("access.log").path) combined;" : "access_log off;"
        let main = Self.mainConfiguration(directory: directory.path, workers: workers, http: "\(log)\n  include \(fleet);")
        let path = directory.appendingPathComponent("nginx.conf").path
        try main.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// nginx.conf around `http` (directives of the http block): every path nginx writes (pid,
    /// error log, temp folders) inside `directory`, so it runs without touching /etc or /var;
    /// sendfile and long keep-alive, as a server tuned for small files runs.
    public static func mainConfiguration(directory: String, workers: Int, http: String) -> String {
        let temp = (directory as NSString).appendingPathComponent("temp")
        // As root, nginx hands its workers to `nobody` unless told otherwise; they must be able to
        // read what the tests wrote and write the edge cache.
        let user = geteuid() == 0 ? "user root root;" : ""
        return """
            \(user)
            worker_processes \(workers);
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 4096; }
            http {
              sendfile on;
              tcp_nopush on;
              tcp_nodelay on;
              keepalive_timeout 65;
              keepalive_requests 1000000;
              client_body_temp_path \(temp)/client;
              proxy_temp_path \(temp)/proxy;
              fastcgi_temp_path \(temp)/fastcgi;
              uwsgi_temp_path \(temp)/uwsgi;
              scgi_temp_path \(temp)/scgi;
              \(http)
            }

            """
    }

    /// nginx's arguments for `write()`'s file: its prefix and error log inside `directory`, in the foreground.
    public func arguments(configuration: String) -> [String] {
        ["-p", directory.path, "-e", directory.appendingPathComponent("error.log").path, "-c", configuration, "-g", "daemon off;"]
    }
}
