import ThumbVariant
import ThumbPipeline
import Thumbnailer

/// The HTTP side's settings. Every field is a key of `server:` in config/thumbd.yaml.
public struct ServerSettings: Sendable {
    /// 127.0.0.1 by default: the daemon serves the machine it runs on unless told otherwise.
    public var host: String = "127.0.0.1"
    public var port: Int = 8080
    /// Bearer token for the admin routes (cache eviction); nil turns them off.
    public var adminToken: String?
    /// HMAC-SHA256 key for signed thumbnail URLs; nil accepts unsigned requests.
    public var signingKey: String?
    /// `Cache-Control: public, max-age=…` on thumbnails.
    public var cacheMaxAgeSeconds: Int = 86_400
    public var maxURLLength: Int = 2048
    /// What a variant is when a request leaves something out, its limits and the presets
    /// (`server.max_size`, `server.only_presets`, `thumbnail.*`, `presets:`).
    public var variants = VariantDefaults()
    /// `Retry-After` on 503 busy.
    public var retryAfterSeconds: Int = 1
    /// One line per request. Off, requests are not logged (errors still are).
    public var accessLog: Bool = true
    /// `text` (the line thumbd has always written) or `json` (one object per line).
    public var accessLogFormat: AccessLogFormat = .text
    /// A file to append the access log to, reopened on SIGHUP (as logrotate expects); nil: standard error.
    public var accessLogPath: String?
    /// The cache inspector at /ui (read-only without the admin token).
    public var inspector: Bool = true
    /// How often the daemon samples the cache's counters for the inspector's charts (an hour of
    /// samples is kept) and hands the memory tier's hits to the disk index.
    public var activitySampleInterval: Duration = .seconds(10)
    /// How often the daemon gives malloc's free pages back to the system (`HeapTrimmer`); zero: never.
    public var heapTrimInterval: Duration = .seconds(30)
    /// After SIGTERM/SIGINT, how long the node keeps answering while `/readyz` says 503 `draining`
    /// (and every response says `Connection: close`), so a balancer moves traffic away first.
    public var drainGrace: Duration = .seconds(5)
    /// Then, how long requests in flight may take to finish once the listener is closed.
    public var drainTimeout: Duration = .seconds(20)

    /// Client connections open at once; over it, new ones are closed as soon as they are accepted.
    /// Lowered at start-up (with a warning) when the process's descriptor limit cannot be raised to it.
    public var maxConnections: Int = 8192
    /// A request's head must arrive whole within this (from the connection's start, or from the
    /// first byte of a later request on it).
    public var headerTimeout: Duration = .seconds(15)
    /// How long a kept-alive connection may wait for its next request.
    public var keepAliveTimeout: Duration = .seconds(75)
    /// How long an upload's body may pause between two reads.
    public var bodyTimeout: Duration = .seconds(60)
    /// How long a client may leave a response unread once the connection can take no more of it.
    public var sendTimeout: Duration = .seconds(60)
    /// The picture answered where a photo cannot be had (`server.fallback_image`, per preset too).
    public var fallback = FallbackSettings()

    public init() {}

    public var listenDescription: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The daemon's base URL for a client on the same machine: a wildcard listen address (0.0.0.0,
    /// ::, as in a container) is reached through the loopback of its family.
    public var localBaseURL: String {
        switch host {
        case "0.0.0.0": return "http://127.0.0.1:\(port)"
        case "::": return "http://[::1]:\(port)"
        default: return "http://\(listenDescription)"
        }
    }
}
