import Testing
import ThumbVariant
@testable import ThumbServer

/// The parsed-query table holds the hot set only: queries parsed for misses (each new, asked once)
/// must not grow it, or a soak of misses grows the daemon's memory until the table empties.
struct ThumbnailQueryMemoTests {
    static func query(_ n: Int) -> String { "url=https%3A%2F%2Fshop.example%2Fp\(n).jpg&size=240" }

    @Test func parsingRemembersNothingAHitRemembers() throws {
        let memo = ThumbnailQueryMemo(settings: ServerSettings())
        for n in 0..<100 { _ = try memo.parse(Self.query(n)) }
        #expect(memo.rememberedCount == 0)
        let (parsed, remembered) = try memo.lookUp(Self.query(7))
        #expect(!remembered)
        memo.remember(Self.query(7), parsed)
        #expect(memo.rememberedCount == 1)
        let again = try memo.lookUp(Self.query(7))
        #expect(again.remembered && again.parsed === parsed)
        #expect(throws: (any Error).self) { try memo.lookUp("size=240") }
        #expect(memo.rememberedCount == 1)
    }
}

/// The fast path's shortcuts through Accept give what the variant's one rule gives.
struct AcceptNegotiationTests {
    static let headers = [
        nil, "", "*/*", "image/*", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "image/webp,*/*",
        "image/png,image/jpeg", "image/jpeg", "image/png", "application/json", "image/webp;q=0, */*", "image/avif;q=0,image/webp",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "image/jpeg;q=0,*/*", "image/*;q=0,image/png",
        "IMAGE/PNG, Image/JPEG", "*/*;q=0", "image/jxl", "fu>", ",,", "image/", "/png",
    ]

    @Test func theShortcutsAgreeWithTheRule() throws {
        let memo = ThumbnailQueryMemo(settings: ServerSettings())
        let parsed = try memo.parse("url=https%3A%2F%2Fshop.example%2Fp.jpg&size=240")
        for accept in Self.headers {
            let rule = parsed.plain.variant.negotiated(accept: accept)
            #expect(parsed.target(accept: accept)?.variant.format == rule?.format, "Accept: \(accept ?? "(none)")")
            #expect(parsed.target(accept: accept).map { $0.key.variant == $0.variant.cacheVariant } ?? true)
        }
        let explicit = try memo.parse("url=https%3A%2F%2Fshop.example%2Fp.jpg&size=240&format=png")
        for accept in Self.headers { #expect(explicit.target(accept: accept) == explicit.plain) }
    }

    @Test func theRule() {
        let auto = Variant(size: 100)
        #expect(auto.negotiated(accept: "image/png,image/jpeg")?.format == .auto)
        #expect(auto.negotiated(accept: "image/webp,*/*")?.format == .webp)
        #expect(auto.negotiated(accept: "image/jpeg")?.format == .jpeg)
        #expect(auto.negotiated(accept: "image/png")?.format == .png)
        #expect(auto.negotiated(accept: "image/*;q=0,image/png")?.format == .png)
        #expect(auto.negotiated(accept: "image/jpeg;q=0,*/*")?.format == .png)
        #expect(auto.negotiated(accept: "application/json") == nil)
        #expect(auto.negotiated(accept: "*/*;q=0") == nil)
        #expect(auto.negotiated(accept: nil)?.format == .auto)
        // No media range in it at all: read as no header.
        #expect(auto.negotiated(accept: "fu>")?.format == .auto)
        #expect(auto.negotiated(accept: "text/html")?.format == nil)
    }
}
