/// What the test origin answers for one path.
///
/// Every response carries an explicit `Content-Length` except `.endless`, which is chunked
/// (`.overlong` carries one that is false).
/// A `HEAD` request gets the same head as a `GET` and no body.
public enum OriginRoute: Sendable {
    /// 200 with the bytes, `Content-Length`, the `Content-Type` given and the optional `ETag` /
    /// `Last-Modified`. Answers 304 (no body) when `If-None-Match` names the etag (or is `*`), or
    /// when `If-Modified-Since` equals `lastModified` exactly. `latency` passes before the head.
    case body(
        bytes: [UInt8],
        contentType: String,
        etag: String? = nil,
        lastModified: String? = nil,
        latency: Duration = .zero
    )
    /// That status with a small `text/plain` body, e.g. 404 or 500.
    case status(Int, body: String = "")
    /// The head (with `Content-Length: contentLength`) and `prefix`, then nothing more, ever,
    /// until the client closes the connection (which counts as an early close).
    case stall(prefix: [UInt8], contentLength: Int)
    /// `Content-Length: declaredLength`, then `bytes` (fewer), then the server closes the connection.
    case truncated(bytes: [UInt8], declaredLength: Int)
    /// 200, chunked, no `Content-Length`: chunks of `chunk` bytes forever, the next one written when
    /// the previous write has completed and `every` has passed, until the client closes (which
    /// counts as an early close).
    case endless(chunk: Int, every: Duration = .zero)
    /// 200 with `Content-Length: bytes.count`, then the bytes one at a time, `every` apart: never
    /// quiet long enough for a read timeout, never done in time either.
    case drip(bytes: [UInt8], every: Duration)
    /// 200 with `Content-Length: declaredLength`, then all of `bytes` (more than declared) on a
    /// connection kept open: what follows the declared length is not part of any response.
    case overlong(bytes: [UInt8], declaredLength: Int)
    /// 200 with `Content-Length: length` and that many bytes, streamed in pieces.
    /// The bytes are ``TestOrigin/sizedBytes(_:)``: byte `i` is `UInt8(i % 251)`.
    case sized(length: Int, contentType: String)
    /// A redirect with `Location: to`, which may be absolute or a path, and an empty body.
    case redirect(to: String, status: Int = 302)
    /// `status` with an empty body, after `latency`.
    case delayedStatus(Int, latency: Duration)
    /// Any route, after `latency` more before its head is written.
    indirect case delayed(Duration, OriginRoute)
    /// Any route, with these header fields added to its head (e.g. `Content-Encoding`, or a
    /// head too large to take).
    indirect case withHeaders([OriginHeader], OriginRoute)

    /// A `.body` route for image bytes.
    public static func image(
        _ bytes: [UInt8],
        contentType: String = "image/jpeg",
        etag: String? = nil,
        lastModified: String? = nil,
        latency: Duration = .zero
    ) -> OriginRoute {
        .body(bytes: bytes, contentType: contentType, etag: etag, lastModified: lastModified, latency: latency)
    }

    /// The total delay before the head, and the route to answer once it has passed (free of delays).
    func splitLatency() -> (latency: Duration, route: OriginRoute) {
        switch self {
        case let .body(bytes, contentType, etag, lastModified, latency):
            return (latency, .body(bytes: bytes, contentType: contentType, etag: etag, lastModified: lastModified))
        case let .delayedStatus(code, latency):
            return (latency, .status(code))
        case let .delayed(latency, inner):
            let (innerLatency, route) = inner.splitLatency()
            return (latency + innerLatency, route)
        case let .withHeaders(headers, inner):
            let (latency, route) = inner.splitLatency()
            return (latency, .withHeaders(headers, route))
        case .status, .stall, .truncated, .endless, .drip, .overlong, .sized, .redirect:
            return (.zero, self)
        }
    }
}

/// One header field a route adds to its response head.
public struct OriginHeader: Sendable {
    public let name: String
    public let value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// `count` fields `X-Filler-N` of `valueLength` bytes each: a response head of about
    /// `count * (valueLength + 14)` bytes, for origins whose head is too large.
    public static func filler(count: Int, valueLength: Int) -> [OriginHeader] {
        let value = String(repeating: "a", count: valueLength)
        return (0..<count).map { OriginHeader("X-Filler-\($0)", value) }
    }
}
