import NIOCore
import Testing
@testable import ThumbServer

/// The raw hit path reads a request head itself only when it can delimit it exactly as NIO's
/// decoder would; every other head goes to the decoder.
struct RawRequestHeadTests {
    static func read(_ text: String) -> RawRequestHead.Reading {
        RawRequestHead.read(ByteBuffer(string: text).readableBytesView)
    }

    static func candidate(_ text: String) -> RawRequestHead? {
        guard case .request(let head) = read(text), head.thumbnailTarget != nil else { return nil }
        return head
    }

    static func text(_ view: ByteBufferView?) -> String? { view.map { String(decoding: $0, as: UTF8.self) } }

    @Test func aHitCandidateWithItsHeaders() throws {
        let request = "GET /v1/thumbnail?url=https%3A%2F%2Fa.example%2Fp.jpg&size=240 HTTP/1.1\r\nHost: t\r\n" +
            "ACCEPT:  image/webp,*/*  \r\nIf-None-Match: \"abc\"\r\nConnection: Keep-Alive\r\n\r\nGET /next"
        let head = try #require(Self.candidate(request))
        #expect(Self.text(head.thumbnailTarget) == "/v1/thumbnail?url=https%3A%2F%2Fa.example%2Fp.jpg&size=240")
        #expect(Self.text(head.accept) == "image/webp,*/*")
        #expect(Self.text(head.ifNoneMatch) == "\"abc\"")
        #expect(head.length == request.utf8.count - "GET /next".utf8.count)
        #expect(Self.candidate("GET /v1/thumbnail?u=1 HTTP/1.1\r\n\r\n")?.accept == nil)
    }

    @Test(arguments: [
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nHost: t\r\n",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nHost: t\r\n\r",
        "GET /v1/thumb",
    ])
    func aHeadNotYetWholeWaits(_ text: String) {
        guard case .incomplete = Self.read(text) else { Issue.record("\(Self.read(text))"); return }
    }

    /// Requests this reader delimits but leaves to NIO's path: another route or method, HTTP/1.0,
    /// a connection that closes or upgrades.
    @Test(arguments: [
        "GET /v1/cache/stats HTTP/1.1\r\nHost: t\r\n\r\n",
        "HEAD /v1/thumbnail?url=x HTTP/1.1\r\n\r\n",
        "GET /v1/thumbnail?url=x HTTP/1.0\r\n\r\n",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nConnection: close\r\n\r\n",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nUpgrade: h2c\r\n\r\n",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nContent-Length: 0\r\nExpect: 100-continue\r\n\r\n",
        "GET /v1/thumbnail HTTP/1.1\r\n\r\n",
    ])
    func requestsForNIOsPath(_ text: String) throws {
        guard case .request(let head) = Self.read(text) else { Issue.record("not delimited: \(text)"); return }
        #expect(head.thumbnailTarget == nil, "\(text)")
        #expect(head.length == text.utf8.count)
    }

    /// Heads whose framing NIO's decoder might read otherwise, or that carry a body: from these on,
    /// the decoder reads the connection.
    @Test(arguments: [
        "POST /v1/uploads/prepare HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\ncontent-length: 3\r\n\r\nabc",
        "GET /v1/thumbnail?url=x HTTP/1.1\nHost: t\r\n\r\n",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nHost: t\rX: y\r\n\r\n",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nContent-Length : 5\r\n\r\nhello",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nHost: t\r\n folded\r\n\r\n",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nNo colon\r\n\r\n",
        "GET /v1/thumbnail?url=caf\u{E9} HTTP/1.1\r\n\r\n",
        "GET /v1/thumbnail?url=x HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 20_000),
    ])
    func headsLeftToTheDecoder(_ text: String) {
        guard case .notDelimitable = Self.read(text) else { Issue.record("\(Self.read(text)) for \(text.prefix(80))"); return }
    }
}
