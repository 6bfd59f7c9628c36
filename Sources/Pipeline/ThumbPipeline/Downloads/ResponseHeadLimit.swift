import NIOHTTP1

extension Downloader {
    /// The most header bytes (names and values) a response may carry. An image origin's head is a
    /// kilobyte or two; tens of kilobytes are a misconfigured or hostile origin (a cookie bomb).
    /// nginx refuses an upstream head over 4 or 8 KiB (`proxy_buffer_size`) by default; 32 KiB
    /// leaves room for CDNs' long policy and tracing headers. NIO's parser stops at 80 KiB on its
    /// own, which `translate` gives the same code.
    static let maxResponseHeadBytes = 32 * 1024

    /// Throws `origin_headers_too_large` for a head over `maxResponseHeadBytes`.
    static func checkHeadSize(_ headers: HTTPHeaders, url: OriginURL) throws(DownloadError) {
        let size = headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        guard size <= maxResponseHeadBytes else {
            throw DownloadError(.originHeadersTooLarge,
                                "\(url) sent \(size) bytes of response headers; the limit is \(maxResponseHeadBytes)")
        }
    }
}
