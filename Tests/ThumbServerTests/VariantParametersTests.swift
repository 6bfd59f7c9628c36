import ThumbVariant
import Foundation
import Testing
import ThumbFleet
import ThumbPipeline
@testable import ThumbServer
import Thumbnailer
import UploadPreparation

/// gravity, focus and trim as every entry point reads and writes them: the prefetch body, the
/// upload query, the fleet's entry-point requests.
struct VariantParametersTests {
    @Test("a prefetch job takes focus and trim as the thumbnail query does")
    func prefetchBody() throws {
        let variant = try PrefetchRoutes.variant(["size": 120, "focus": "0.2,0.75", "trim": true], settings: ServerSettings())
        #expect(variant.gravity == .focus(FocusPoint(x: 0.2, y: 0.75)!) && variant.trim)
        #expect(variant.canonicalText == "120/cover/auto/q82/focus=0.200,0.750/trim")
        for bad: [String: Any] in [["focus": "2,2"], ["focus": 0.5], ["trim": "maybe"], ["gravity": "smart", "focus": "0.5,0.5"], ["gravity": "north"]] {
            #expect(throws: Problem.self) { try PrefetchRoutes.variant(bad, settings: ServerSettings()) }
        }
        // contain crops nothing: its focus is dropped, so it shares the plain contain key.
        let contain = try PrefetchRoutes.variant(["fit": "contain", "focus": "0.2,0.75"], settings: ServerSettings())
        #expect(contain.canonicalText == "200/contain/auto/q82")
    }

    @Test("a prefetch body names a shape as \"WxH\" text; a number stays a square")
    func prefetchShape() throws {
        let card = try PrefetchRoutes.variant(["size": "300x400", "fit": "pad", "bg": "blur", "dpr": 1.5], settings: ServerSettings())
        #expect((card.width, card.height, card.canonicalText) == (450, 600, "450x600/pad/auto/q82/bg=blur"))
        let square = try PrefetchRoutes.variant(["size": 240, "gravity": "center"], settings: ServerSettings())
        #expect(square.canonicalText == "240/cover/auto/q82")
        for bad: [String: Any] in [["size": "300x"], ["size": 0], ["size": [300, 400]], ["dpr": "x"], ["max_bytes": -1], ["fit": "pad", "gravity": "smart"]] {
            #expect(throws: Problem.self) { try PrefetchRoutes.variant(bad, settings: ServerSettings()) }
        }
    }

    @Test("a body as Foundation's JSON reader gives it: booleans and numbers are told apart")
    func prefetchParsedJSON() throws {
        let body = #"{"size":1,"trim":true,"q":70,"fit":"contain","max_bytes":9000}"#
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let variant = try PrefetchRoutes.variant(object, settings: ServerSettings())
        #expect(variant.canonicalText == "1/contain/auto/q70/max=9000/trim")
        let wrong = try #require(try JSONSerialization.jsonObject(with: Data(#"{"trim":1,"size":true}"#.utf8)) as? [String: Any])
        #expect(throws: Problem.self) { try PrefetchRoutes.variant(wrong, settings: ServerSettings()) }
    }

    @Test("an upload's square takes ?focus=, and refuses it beside gravity")
    func uploadQuery() throws {
        let rules = try UploadRoutes.rules(QueryParameters("square=1&focus=0.9,0.1"), base: UploadSettings())
        #expect(rules.square && rules.gravity == .focus(FocusPoint(x: 0.9, y: 0.1)!))
        #expect(throws: Problem.self) { try UploadRoutes.rules(QueryParameters("focus=0.9,0.1&gravity=center"), base: UploadSettings()) }
        #expect(throws: Problem.self) { try UploadRoutes.rules(QueryParameters("focus=0.9"), base: UploadSettings()) }
    }

    @Test("the fleet's entry-point query spells focus and trim, and leaves older variants' queries as they were")
    func entryPointQuery() throws {
        let focus = Variant(size: 200, gravity: .focus(FocusPoint(x: 0.25, y: 0.5)!), trim: true, format: .jpeg)
        let path = EntryPointMaker.thumbnailPath(url: "https://img.example/p.jpg", variant: focus)
        #expect(path.contains("focus=0.250%2C0.500") && path.contains("trim=1") && !path.contains("gravity="), "\(path)")
        let smart = EntryPointMaker.thumbnailPath(url: "https://img.example/p.jpg", variant: Variant(size: 200, gravity: .smart))
        #expect(smart.contains("gravity=smart") && !smart.contains("trim") && !smart.contains("focus"), "\(smart)")
        // What the fleet writes, the daemon reads back to the same variant.
        let query = String(path.dropFirst("/v1/thumbnail?".count))
        let parsed = try ThumbnailQuery(QueryParameters(query), settings: ServerSettings(), signer: nil)
        #expect(parsed.variant == focus)
    }

    @Test("a prefetch job names a preset, and under only_presets must")
    func prefetchPreset() throws {
        var settings = ServerSettings()
        settings.variants.presets = ["grid": Variant(size: 240, gravity: .smart)]
        let variant = try PrefetchRoutes.variant(["preset": "grid"], settings: settings)
        #expect(variant == Variant(size: 240, gravity: .smart) && variant.preset == "grid")
        settings.variants.onlyPresets = true
        do {
            _ = try PrefetchRoutes.variant(["size": 240], settings: settings)
            Issue.record("a job without a preset was taken under only_presets")
        } catch let problem as Problem {
            #expect(problem.code == "preset_required" && problem.statusCode == 403)
        }
        #expect(throws: Problem.self) { try PrefetchRoutes.variant(["preset": "grid", "q": 50], settings: settings) }
    }

    @Test("the fleet asks for a preset's thumbnails by name")
    func entryPointPreset() {
        var variant = Variant(size: 240, gravity: .smart)
        variant.preset = "grid"
        #expect(EntryPointMaker.thumbnailPath(url: "https://img.example/p.jpg", variant: variant)
                == "/v1/thumbnail?preset=grid&url=https%3A%2F%2Fimg.example%2Fp.jpg")
    }
}
