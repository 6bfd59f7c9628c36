import Testing
import ThumbCache
import ThumbVariant
import Thumbnailer

@Suite struct VariantParserTests {
    static func parse(_ query: [(String, String)], defaults: VariantDefaults = VariantDefaults()) throws(VariantError) -> Variant {
        try VariantParser.parse(VariantFields(query: query), defaults: defaults)
    }

    /// The parameter a refusal names, or nil when it was accepted.
    static func refused(_ query: [(String, String)], defaults: VariantDefaults = VariantDefaults()) -> String? {
        do { _ = try parse(query, defaults: defaults); return nil } catch { return error.parameter }
    }

    @Test func aSquareKeepsTheKeyItHadBeforeShapes() throws {
        // The texts the release before shapes wrote for these variants (its CacheVariant.description).
        let cases: [([(String, String)], String)] = [
            ([("size", "200"), ("gravity", "center")], "200/cover/auto/q82"),
            ([("size", "240"), ("gravity", "smart"), ("format", "webp"), ("q", "80")], "240/cover/webp/q80/smart"),
            ([("size", "64"), ("fit", "contain"), ("trim", "1")], "64/contain/auto/q82/trim"),
            ([("size", "300"), ("focus", "0.25,0.6"), ("format", "jpeg")], "300/cover/jpeg/q82/focus=0.250,0.600"),
        ]
        for (query, text) in cases {
            #expect(try Self.parse(query).canonicalText == text)
            #expect(CacheVariant(text)?.description == text)
        }
    }

    @Test func shapesPadDprAndByteCapHaveOneText() throws {
        let card = try Self.parse([("size", "300x400"), ("gravity", "center")])
        #expect((card.width, card.height, card.canonicalText) == (300, 400, "300x400/cover/auto/q82"))
        let padded = try Self.parse([("size", "600"), ("fit", "pad"), ("bg", "F0F0F0"), ("format", "jpeg"), ("max_bytes", "30000")])
        #expect(padded.canonicalText == "600/pad/jpeg/q82/bg=f0f0f0/max=30000")
        #expect(CacheVariant(padded.canonicalText) == padded.cacheVariant)
        // A dpr is the same variant as its pixel size: the same bytes, one cache entry.
        let retina = try Self.parse([("size", "200x100"), ("dpr", "2"), ("gravity", "smart")])
        #expect(retina == (try Self.parse([("size", "400x200"), ("gravity", "smart")])))
        // Capped by the size limit, keeping the shape.
        let capped = try Self.parse([("size", "1500x1000"), ("dpr", "4")])
        #expect((capped.width, capped.height) == (2048, 1365))
        // pad's default background is white; a padded transparent one stays PNG-able.
        #expect(try Self.parse([("fit", "pad")]).background == .white)
        #expect(try Self.parse([("fit", "pad"), ("bg", "transparent")]).background == .transparent)
    }

    @Test func aVariantTextNoVariantWritesIsRefused() {
        for text in ["200/cover/jpeg/q82/bg=ffffff", "300x400/pad/jpeg/q82", "600/pad/jpeg/q82/bg=FFFFFF", "600/pad/jpeg/q82/bg=xyz",
                     "300x300/cover/jpeg/q82", "600/pad/jpeg/q82/max=30000/bg=ffffff", "600/cover/jpeg/q82/max=0", "200/cover/jpeg/q82/center"] {
            #expect(CacheVariant(text) == nil, "\(text)")
        }
        #expect(CacheVariant("600/pad/jpeg/q82/bg=0a0b0c/max=30000/trim")?.description == "600/pad/jpeg/q82/bg=0a0b0c/max=30000/trim")
    }

    @Test func badValuesNameTheirParameter() {
        #expect(Self.refused([("size", "0x400")]) == "size")
        #expect(Self.refused([("size", "300x")]) == "size")
        #expect(Self.refused([("size", "300x400x2")]) == "size")
        #expect(Self.refused([("size", "2049x10")]) == "size")
        #expect(Self.refused([("size", "-5")]) == "size")
        #expect(Self.refused([("size", "+5")]) == "size")
        #expect(Self.refused([("fit", "pad"), ("bg", "zzz")]) == "bg")
        #expect(Self.refused([("bg", "ffffff")]) == "bg")  // no bands without pad
        #expect(Self.refused([("dpr", "0")]) == "dpr")
        #expect(Self.refused([("dpr", "4.5")]) == "dpr")
        #expect(Self.refused([("max_bytes", "-1")]) == "max_bytes")
        #expect(Self.refused([("max_bytes", "0")]) == "max_bytes")
        #expect(Self.refused([("fit", "pad"), ("gravity", "smart")]) == "gravity")
        #expect(Self.refused([("fit", "pad"), ("focus", "0.5,0.5")]) == "focus")
        #expect(Self.refused([("fit", "pad"), ("bg", "transparent"), ("format", "jpeg")]) == "bg")
        #expect(Self.refused([("q", "101")]) == "q")
        #expect(Self.refused([("q", "80"), ("quality", "70")]) == "q")
        #expect(Self.refused([("sise", "200")]) == "sise")
        #expect(Self.refused([("size", "300x400"), ("fit", "pad")]) == nil)
    }

    @Test func everyDoorReadsTheSameValues() throws {
        // A JSON body and a YAML map give numbers and booleans where a query gives text.
        let typed = VariantFields([("size", .number(240)), ("trim", .flag(true)), ("quality", .number(70)), ("dpr", .number(1.5))])
        let texts = VariantFields(query: [("size", "240"), ("trim", "1"), ("q", "70"), ("dpr", "1.5")])
        #expect(try VariantParser.parse(typed, defaults: VariantDefaults()) == (try VariantParser.parse(texts, defaults: VariantDefaults())))
        // YAML reads `bg: 000100` as a number (octal 64): refused, so no colour is silently wrong.
        let yamlBackground = VariantFields([("fit", .text("pad")), ("bg", .number(64))])
        #expect(throws: VariantError.self) { try VariantParser.parse(yamlBackground, defaults: VariantDefaults()) }
    }

    @Test func aPresetIsTheWholeVariant() throws {
        var defaults = VariantDefaults()
        defaults.presets = ["card": Variant(width: 300, height: 400, gravity: .smart)]
        defaults.onlyPresets = true
        let card = try Self.parse([("preset", "card")], defaults: defaults)
        #expect(card.preset == "card" && card.canonicalText == "300x400/cover/auto/q82/smart")
        #expect(Self.refused([("preset", "card"), ("size", "100")], defaults: defaults) == "preset")
        #expect(Self.refused([("preset", "nope")], defaults: defaults) == "preset")
        #expect(throws: VariantError.self) { try Self.parse([("size", "100")], defaults: defaults) }
        #expect(card.parameters.map(\.name) == ["preset"])
    }

    @Test func theWrittenParametersReadBackAsTheSameVariant() throws {
        for query in [[("size", "300x400"), ("gravity", "smart"), ("trim", "1")], [("size", "600"), ("fit", "pad"), ("bg", "blur"), ("max_bytes", "9000")],
                      [("size", "50"), ("focus", "0.1,0.9"), ("format", "avif"), ("q", "60")]] {
            let variant = try Self.parse(query)
            #expect(try Self.parse(variant.parameters.map { ($0.name, $0.value) }) == variant)
        }
    }
}
