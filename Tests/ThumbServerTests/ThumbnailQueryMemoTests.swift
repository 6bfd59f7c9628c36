import Testing
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
