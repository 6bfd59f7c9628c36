import ThumbVariant
import Foundation
import ImageCodecs
import ImageCore
import Testing
import TestOrigin
import ThumbCache
import ThumbPipeline
@testable import ThumbServer

/// The inspector in a real browser: a daemon on a temporary cache with known entries, `/ui`
/// rendered by headless Chromium, the DOM checked for the entries and totals, and a screenshot
/// (kept in `.build/test-output/inspector/`) checked for the thumbnails' colours.
@Suite(.serialized) struct InspectorBrowserTests {
    static let token = "browser-test-token"

    @Test("/ui renders the cache: entries, totals and charts; hostile URLs stay text; read-only without the token",
          .requires(HeadlessChromium.program != nil, Comment(rawValue: HeadlessChromium.missing)))
    func rendersTheCache() async throws {
        let browser = try #require(HeadlessChromium())
        defer { browser.cleanUp() }
        let daemon = try await TestDaemon.start { settings in
            settings.server.adminToken = Self.token
            settings.server.activitySampleInterval = .milliseconds(200)
        }
        defer { Task { try? await daemon.stop() } }
        let keys = InspectorFixture.fill(daemon.cache)
        try await InspectorFixture.answer(daemon, hits: 4, misses: 1, token: Self.token)
        try await Task.sleep(for: .milliseconds(600))  // a few samples for the charts

        let base = "http://127.0.0.1:\(daemon.port)/ui?sort=size"
        let dom = try await browser.dumpDOM(base)
        #expect(dom.contains("data-ready=\"1\""), "the page's script did not finish: \(dom.prefix(3000))")

        // Every entry is a card, with its URL as text and in its data attribute.
        #expect(Self.count("<li class=\"entry\"", in: dom) == keys.count)
        for name in ["red", "green", "blue"] {
            #expect(dom.contains(">\(InspectorFixture.url(name).value)<"), "\(name) is not listed")
        }
        #expect(dom.contains(">shop.example<") && dom.contains(">evil.example<"))
        #expect(dom.contains("400/cover/jpeg/q82") && dom.contains("0/original/source/q0"), "variants are not shown")

        // The hostile URLs are text: escaped in the markup, never elements, never run.
        #expect(dom.contains("/&lt;script&gt;document.body.setAttribute('data-pwned','1')&lt;/script&gt;.jpg"))
        #expect(dom.contains("?x=\"&gt;&lt;img/src=/x/onerror=document.body.setAttribute('data-pwned','2')&gt;"))
        #expect(!dom.contains("<script>document.body"), "a URL became a script element")
        #expect(!dom.contains("<img/src=/x") && !dom.contains("<img src=\"/x\""), "a URL became an img element")
        #expect(!dom.contains("data-pwned=\""), "script from a URL ran")

        // Totals per tier, against their limits, as the cache counts them.
        let usage = try #require(daemon.cache.disk?.usage)
        let memory = daemon.cache.memory.stats
        #expect(Self.tier("disk", in: dom) == [usage.thumbnails.entries, usage.thumbnails.bytes, usage.thumbnails.maxBytes])
        #expect(Self.tier("originals", in: dom) == [usage.originals.entries, usage.originals.bytes, usage.originals.maxBytes])
        #expect(Self.tier("memory", in: dom) == [memory.entries, memory.bytes, memory.maxBytes])
        #expect(dom.contains("data-total=\"\(keys.count)\""))
        #expect(dom.contains(">80.0%<"), "the hit ratio (4 hits, 1 miss) is not shown")
        #expect(Self.attribute("data-total", after: "data-chart=\"hits\"", in: dom) == 4)
        #expect(Self.attribute("data-total", after: "data-chart=\"misses\"", in: dom) == 1)

        // Read-only: no evict button shows. With the token (in the fragment), they do: one per entry,
        // and one for the whole URL on the three cards of the URL with three variants.
        #expect(dom.contains("data-mode=\"read-only\""))
        #expect(Self.count(">Evict<", in: dom) == keys.count && Self.count("hidden=\"\">Evict<", in: dom) == keys.count)
        #expect(Self.count(">Evict URL<", in: dom) == 3 && Self.count("hidden=\"\">Evict URL<", in: dom) == 3)
        let admin = try await browser.dumpDOM(base + "#token=\(Self.token)")
        #expect(admin.contains("data-mode=\"admin\""))
        #expect(Self.count(">Evict<", in: admin) == keys.count && Self.count("hidden=\"\">Evict<", in: admin) == 0)
        #expect(Self.count(">Evict URL<", in: admin) == 3 && Self.count("hidden=\"\">Evict URL<", in: admin) == 0)
        let wrong = try await browser.dumpDOM(base + "#token=not-the-token")
        #expect(wrong.contains("data-mode=\"read-only\"") && wrong.contains("the admin token does not match"))

        // Filtering by URL text, in the page's own address.
        let filtered = try await browser.dumpDOM("http://127.0.0.1:\(daemon.port)/ui?q=green")
        #expect(Self.count("<li class=\"entry\"", in: filtered) == 1 && filtered.contains(">\(InspectorFixture.url("green").value)<"))

        // A prefetch job whose origin is slow: the header shows it running, with its progress, and
        // the downloads it has in flight (6: the per-host limit).
        var routes: [String: OriginRoute] = [:]
        for index in 0..<20 { routes["/slow\(index).jpg"] = .image(Images.jpeg, latency: .seconds(60)) }
        let origin = try await TestOrigin.start(routes: routes)
        let job = try daemon.daemon.prefetcher.submit(.urls((0..<20).map { origin.url("/slow\($0).jpg") }), variant: Variant(size: 64))
        #expect(await origin.waitForTotalRequests(count: 6, timeout: .seconds(20)))
        let busy = try await browser.dumpDOM(base)
        _ = daemon.daemon.prefetcher.cancel(job.id)
        try await origin.shutdown()
        #expect(busy.contains("data-job=\"\(job.id)\""), "the prefetch job is not shown")
        #expect(busy.contains("prefetch \(job.id.prefix(8)) · running") && busy.contains(">0 / 20 · "))
        #expect(busy.contains("id=\"downloads\"><span class=\"value\">6</span>"), "downloads in flight are not shown")

        // The screenshot shows the thumbnails themselves, loaded from the daemon.
        let shot = try HeadlessChromium.outputFolder().appendingPathComponent("inspector.png")
        try await browser.screenshot(base, to: shot)
        print("inspector screenshot: \(shot.path)")
        let image = try ImageCodecs.decode(Array(try Data(contentsOf: shot))).pixels
        for colour in InspectorFixture.colours {
            let pixels = Self.pixels(near: colour.rgb, in: image)
            #expect(pixels > 5000, "the \(colour.name) thumbnail is not on the screenshot (\(pixels) pixels of its colour)")
        }
    }

    static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// entries, bytes, max bytes of the tier's bar.
    static func tier(_ name: String, in dom: String) -> [Int] {
        guard let start = dom.range(of: "data-tier=\"\(name)\"") else { return [] }
        let tag = dom[start.lowerBound...].prefix { $0 != ">" }
        return ["data-entries", "data-bytes", "data-max-bytes"].compactMap { attribute(in: String(tag), $0) }
    }

    static func attribute(_ name: String, after marker: String, in dom: String) -> Int? {
        guard let start = dom.range(of: marker) else { return nil }
        return attribute(in: String(dom[start.upperBound...].prefix(2000)), name)
    }

    static func attribute(in text: String, _ name: String) -> Int? {
        guard let range = text.range(of: "\(name)=\"") else { return nil }
        return Int(text[range.upperBound...].prefix { $0 != "\"" })
    }

    static func pixels(near rgb: (UInt8, UInt8, UInt8), in image: PixelBuffer) -> Int {
        var count = 0
        let target = [Int(rgb.0), Int(rgb.1), Int(rgb.2)]
        for i in stride(from: 0, to: image.pixels.count, by: PixelBuffer.bytesPerPixel) {
            if abs(Int(image.pixels[i]) - target[0]) <= 12 && abs(Int(image.pixels[i + 1]) - target[1]) <= 12
                && abs(Int(image.pixels[i + 2]) - target[2]) <= 12 { count += 1 }
        }
        return count
    }
}
