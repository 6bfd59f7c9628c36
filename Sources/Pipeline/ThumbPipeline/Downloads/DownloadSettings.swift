import NetworkGuard
import ObjectStorage

/// The downloader's limits. Every field but `resolver` is a key of `download:` in config/thumbd.yaml.
public struct DownloadSettings: Sendable {
    /// Downloads in flight at once, over all hosts.
    public var maxConcurrent: Int = 16
    /// Downloads in flight at once to one host (a CDN that sees 16 connections from us at once
    /// may think it is under attack).
    public var maxPerHost: Int = 6
    public var connectTimeout: Duration = .seconds(5)
    /// The whole download: resolution, every redirect, and the body.
    public var totalTimeout: Duration = .seconds(30)
    /// Larger bodies are cut off while streaming, never buffered whole.
    public var maxBytes: Int = 20_000_000
    public var maxRedirects: Int = 5
    /// Follow a redirect from https to http. Off: such a redirect is `insecure_redirect`.
    public var allowInsecureRedirects: Bool = false
    /// A PEM file of certificate authorities trusted for https origins besides the system's (an
    /// internal CA); nil: the system's only.
    public var caFile: String?
    /// Which addresses and hosts may be reached.
    public var policy: AddressPolicy = AddressPolicy()
    public var userAgent: String = "thumbd/1.0"
    /// Where `s3://` URLs are fetched from, and with which credentials (`sources.s3`, AWS_*). The
    /// endpoints are the operator's own: the address policy does not apply to them.
    public var s3: S3Settings = S3Settings()
    /// Not a setting: how host names become addresses. The system resolver, or in tests one that
    /// answers from a table or slowly (a DNS server that takes its time cannot be had without root).
    public var resolver: HostResolver = HostResolver()

    public init() {}
}
