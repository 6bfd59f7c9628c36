import NetworkGuard
import Testing

struct HostPatternTests {
    @Test("matches", arguments: [
        ("images.example.com", "images.example.com", true),
        ("images.example.com", "IMAGES.Example.COM", true),
        ("images.example.com", "images.example.com.", true),
        ("Images.Example.com.", "images.example.com", true),
        ("images.example.com", "cdn.example.com", false),
        ("images.example.com", "a.images.example.com", false),
        ("images.example.com", "images.example.com.evil.test", false),
        ("*.example.com", "a.example.com", true),
        ("*.example.com", "a.b.example.com", true),
        ("*.example.com", "A.EXAMPLE.COM.", true),
        ("*.example.com", "example.com", false),
        ("*.example.com", "badexample.com", false),
        ("*.example.com", ".example.com", false),
        ("*.example.com", "example.com.evil.test", false),
        ("*.example.com", "evil.test\u{0}.example.com", false),
        ("*.example.com", "evil.test/.example.com", false),
        ("*.example.com", "\u{212A}.example.com", false),
        ("127.0.0.1", "127.0.0.1", true),
        ("::1", "[::1]", true),
        ("[0:0::1]", "::1", true),
        ("::1", "::2", false),
    ])
    func matches(_ pattern: String, _ host: String, _ expected: Bool) throws {
        let parsed = try #require(HostPattern(pattern))
        #expect(parsed.matches(host) == expected)
    }

    @Test("refuses", arguments: ["", "*", "*.", "*example.com", "a.*.example.com", "exa mple.com", "a..b", ".example.com",
                                 "*.*.example.com", "*.127.0.0.1", "ex/ample.com", "héllo.example"])
    func refuses(_ text: String) {
        #expect(HostPattern(text) == nil)
    }

    @Test func describesNormalized() throws {
        #expect(try #require(HostPattern(" *.Example.COM. ")).description == "*.example.com")
        #expect(try #require(HostPattern("[::1]")).description == "::1")
    }

    @Test func parsesLists() throws {
        let patterns = try HostPattern.parseList("images.example.com, *.cdn.example.net ,,")
        #expect(patterns.map(\.description) == ["images.example.com", "*.cdn.example.net"])
        #expect(throws: HostPatternParseError(entry: "*bad")) { try HostPattern.parseList("ok.test,*bad") }
    }
}
