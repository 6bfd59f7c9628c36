import Foundation
import ImageCodecs
import ImageCore
import TestOrigin
import Testing
import TestSupport
import ThumbCache

@Suite("GET /v1/thumbnail: validators, formats, tiers, revalidation, parameters")
struct HTTPSemanticsTests {
    @Test("ETag of the bytes, and 304 for a matching If-None-Match")
    func etagAndNotModified() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start()
        let path = daemon.thumbnailPath(origin.url("/p.jpg"), "size=80&format=jpeg")
        let first = try await daemon.get(path)
        #expect(first.status == 200)
        let etag = try #require(first.header("etag"))
        #expect(etag == "\"\(String(SHA256.hex(first.body).prefix(32)))\"")
        #expect(first.header("cache-control") == "public, max-age=86400")
        let again = try await daemon.get(path, headers: [("If-None-Match", etag)])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.header("etag") == etag)
        let other = try await daemon.get(path, headers: [("If-None-Match", "\"something-else\"")])
        #expect(other.status == 200)
        #expect(other.body == first.body)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("format=auto gives AVIF, else WebP, when Accept allows it, with Vary: Accept")
    func autoFormat() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start()
        let path = daemon.thumbnailPath(origin.url("/p.jpg"), "size=80&format=auto")
        let avif = try await daemon.get(path, headers: [("Accept", "image/avif,image/webp,*/*;q=0.8")])
        #expect(avif.status == 200)
        #expect(avif.header("content-type") == "image/avif")
        #expect(avif.header("vary") == "Accept")
        #expect(Array(avif.body[4..<12]) == Array("ftypavif".utf8))
        let decoded = try ImageCodecs.decode(avif.body)
        #expect(decoded.info.format == .avif && decoded.pixels.width == 80 && decoded.pixels.height == 80)
        let refusesAVIF = try await daemon.get(path, headers: [("Accept", "image/avif;q=0,image/webp,*/*;q=0.8")])
        #expect(refusesAVIF.header("content-type") == "image/webp")
        // Spelled as RFC 9110 allows (and as the fleet's nginx map reads it): still refused, and
        // with nothing else taken, nothing is answered.
        let spaced = try await daemon.get(path, headers: [("Accept", "image/avif; Q = 0.000, image/webp;q=0")])
        #expect(spaced.status == 406 && spaced.problemCode == "not_acceptable" && spaced.header("vary") == "Accept")
        let webp = try await daemon.get(path, headers: [("Accept", "image/webp,*/*;q=0.8")])
        #expect(webp.status == 200)
        #expect(webp.header("content-type") == "image/webp")
        #expect(webp.header("vary") == "Accept")
        #expect(Array(webp.body[8..<12]) == Array("WEBP".utf8))
        let plain = try await daemon.get(path, headers: [("Accept", "image/jpeg,*/*")])
        #expect(plain.header("content-type") == "image/jpeg")
        #expect(plain.header("vary") == "Accept")
        #expect(plain.body.starts(with: [0xFF, 0xD8]))
        let none = try await daemon.get(path)
        #expect(none.header("content-type") == "image/jpeg")
        // An explicit format does not vary.
        let explicit = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), "size=80&format=png"))
        #expect(explicit.header("content-type") == "image/png")
        #expect(explicit.header("vary") == nil)
        let explicitAVIF = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), "size=80&format=avif"))
        #expect(explicitAVIF.header("content-type") == "image/avif" && explicitAVIF.header("vary") == nil)
        // One download served every variant (the original is kept on disk).
        #expect(origin.requestCount("/p.jpg") == 1)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("format=auto never answers a type Accept excludes: PNG or JPEG as taken, 406 when neither is")
    func acceptIsObeyed() async throws {
        let cutOut = try ImageCodecs.decode(Images.cutOutPNG).pixels
        let origin = try await TestOrigin.start(routes: [
            "/p.jpg": .image(Images.jpeg), "/cut.png": .image(Images.cutOutPNG),
            "/cut.webp": .image(try ImageCodecs.encode(cutOut, .webp(quality: 90)), contentType: "image/webp"),
        ])
        let daemon = try await TestDaemon.start()
        for source in ["/p.jpg", "/cut.png", "/cut.webp"] {
            for query in ["size=80", "size=80x60&fit=pad&bg=transparent", "size=80&max_bytes=60000", "size=80x60&fit=pad"] {
                let path = daemon.thumbnailPath(origin.url(source), query)
                let classic = try await daemon.get(path, headers: [("Accept", "image/png,image/jpeg")])
                #expect(classic.status == 200 && ["image/png", "image/jpeg"].contains(classic.header("content-type") ?? ""),
                        "\(source) \(query): \(classic.status) \(classic.header("content-type") ?? "")")
                let pngOnly = try await daemon.get(path, headers: [("Accept", "image/png")])
                #expect(pngOnly.status == 200 && pngOnly.header("content-type") == "image/png", "\(source) \(query): \(pngOnly.status)")
                let wildcard = try await daemon.get(path, headers: [("Accept", "image/*")])
                #expect(classic.header("content-type") == wildcard.header("content-type"), "\(source) \(query)")
                let refusedWebP = try await daemon.get(path, headers: [("Accept", "image/webp;q=0, */*")])
                #expect(refusedWebP.header("content-type") != "image/webp", "\(source) \(query)")
            }
        }
        // Opaque thumbnails of a client that takes only JPEG are JPEG, transparent ones too: laid on white.
        let jpegOnly = try await daemon.get(daemon.thumbnailPath(origin.url("/cut.png"), "size=80"), headers: [("Accept", "image/jpeg")])
        #expect(jpegOnly.status == 200 && jpegOnly.header("content-type") == "image/jpeg")
        let corner = try ImageCodecs.decode(jpegOnly.body).pixels.pixel(x: 0, y: 0)
        #expect(min(corner.r, corner.g, corner.b) >= 245, "a clear corner laid on \(corner), not white")
        let json = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), "size=80"), headers: [("Accept", "application/json")])
        #expect(json.status == 406 && json.problemCode == "not_acceptable" && json.header("vary") == "Accept")
        // An explicit format is what the query named, whatever Accept says.
        let named = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), "size=80&format=webp"), headers: [("Accept", "image/png")])
        #expect(named.status == 200 && named.header("content-type") == "image/webp")
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("An AVIF original is read like any other; a truncated one is truncated_image")
    func avifInput() async throws {
        let avif = try ImageCodecs.encode(SyntheticImage.gradient(width: 320, height: 200), .avif(quality: 80))
        let origin = try await TestOrigin.start(routes: ["/a.avif": .image(avif, contentType: "image/avif"),
                                                         "/cut.avif": .image(Array(avif.prefix(avif.count / 2)), contentType: "image/avif")])
        let daemon = try await TestDaemon.start()
        let made = try await daemon.get(daemon.thumbnailPath(origin.url("/a.avif"), "size=64&format=jpeg"))
        #expect(made.status == 200 && made.header("content-type") == "image/jpeg")
        let pixels = try ImageCodecs.decode(made.body).pixels
        #expect(pixels.width == 64 && pixels.height == 64)
        let cut = try await daemon.get(daemon.thumbnailPath(origin.url("/cut.avif"), "size=64"))
        #expect(cut.status == 422 && String(decoding: cut.body, as: UTF8.self).contains("truncated_image"))
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("X-Cache moves miss, memory, then disk after a restart")
    func tiersAcrossRestart() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let directory = try TestDaemon.temporaryDirectory()
        let first = try await TestDaemon.start(cacheDirectory: directory)
        let path = first.thumbnailPath(origin.url("/p.jpg"))
        let miss = try await first.get(path)
        let memory = try await first.get(path)
        #expect(miss.header("x-cache") == "miss")
        #expect(memory.header("x-cache") == "memory")
        #expect(memory.body == miss.body)
        try await first.stop()

        let second = try await TestDaemon.start(cacheDirectory: directory)
        let disk = try await second.get(path)
        let memoryAgain = try await second.get(path)
        #expect(disk.header("x-cache") == "disk")
        #expect(disk.body == miss.body)
        #expect(disk.header("etag") == miss.header("etag"))
        #expect(memoryAgain.header("x-cache") == "memory")
        #expect(origin.requestCount("/p.jpg") == 1)
        try await second.stop()
        try await origin.shutdown()
    }

    @Test("A stale entry is revalidated with the origin's validators; 304 refreshes it without re-processing")
    func revalidation() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/p.jpg": .image(Images.jpeg, etag: "\"v1\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT"),
        ])
        let daemon = try await TestDaemon.start { $0.diskLimits.ttl = .seconds(2) }
        let path = daemon.thumbnailPath(origin.url("/p.jpg"))
        let first = try await daemon.get(path)
        #expect(first.header("x-cache") == "miss")
        try await Task.sleep(for: .milliseconds(2500))
        let revalidated = try await daemon.get(path)
        #expect(revalidated.status == 200)
        #expect(revalidated.header("x-cache-revalidated") == "304")
        #expect(revalidated.body == first.body)
        let requests = origin.requests("/p.jpg")
        #expect(requests.count == 2)
        #expect(requests.last?.header("if-none-match") == "\"v1\"")
        #expect(requests.last?.header("if-modified-since") == "Sat, 21 Nov 2026 10:00:00 GMT")
        // Fresh again: the next request is a plain hit.
        let fresh = try await daemon.get(path)
        #expect(fresh.header("x-cache") == "memory")
        #expect(fresh.header("x-cache-revalidated") == nil)
        #expect(origin.requestCount("/p.jpg") == 2)
        let metrics = try await daemon.get("/metrics")
        let values = try PrometheusText.parse(metrics.body)
        #expect(values["thumbd_revalidations_not_modified_total"] == 1)
        #expect(values["thumbd_jobs_started_total"] == 2)
        #expect(values["thumbd_decode_seconds_count"] == 1, "the 304 must not decode again")
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A changed image behind a stale entry is fetched and made again")
    func revalidationWithNewContent() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg, etag: "\"v1\"")])
        let daemon = try await TestDaemon.start { $0.diskLimits.ttl = .seconds(2) }
        let path = daemon.thumbnailPath(origin.url("/p.jpg"))
        let first = try await daemon.get(path)
        origin.setRoute("/p.jpg", .image(Images.otherJPEG, etag: "\"v2\""))
        try await Task.sleep(for: .milliseconds(2500))
        let second = try await daemon.get(path)
        #expect(second.status == 200)
        #expect(second.header("x-cache") == "miss")
        #expect(second.body != first.body)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("Bad parameters are refused with 400 before anything is fetched", arguments: [
        ("size=0", "invalid_parameter"), ("size=99999", "invalid_parameter"), ("size=abc", "invalid_parameter"),
        ("q=0", "invalid_parameter"), ("q=101", "invalid_parameter"), ("fit=stretch", "invalid_parameter"),
        ("format=gif", "invalid_parameter"), ("sise=10", "invalid_parameter"),
        ("gravity=north", "invalid_parameter"), ("gravity=Smart", "invalid_parameter"), ("gravity=", "invalid_parameter"),
        ("focus=1.5,0.5", "invalid_parameter"), ("focus=0.5", "invalid_parameter"), ("focus=a,b", "invalid_parameter"),
        ("focus=-0.1,0.5", "invalid_parameter"), ("focus=", "invalid_parameter"), ("gravity=smart&focus=0.5,0.5", "invalid_parameter"),
        ("trim=maybe", "invalid_parameter"),
    ])
    func badParameters(_ extra: String, _ code: String) async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), extra))
        #expect(reply.status == 400)
        #expect(reply.problemCode == code)
        #expect(origin.totalRequests == 0)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("gravity is part of the variant: smart and center are two thumbnails, each cached, each with its ETag")
    func gravityIsPartOfTheVariant() async throws {
        // A red disc at the left of a white 3:2 frame: the centre crop cuts it, the smart one keeps it.
        var image = PixelBuffer(width: 600, height: 400)
        for y in 0..<400 {
            for x in 0..<600 {
                let i = (y * 600 + x) * 4
                let inDisc = (x - 110) * (x - 110) + (y - 200) * (y - 200) < 90 * 90
                (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]) = inDisc ? (200, 30, 30) : (245, 245, 245)
            }
        }
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(try ImageCodecs.encode(image, .jpeg(quality: 90)))])
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let centre = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), "size=64&format=jpeg&gravity=center"))
        let smart = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), "size=64&format=jpeg&gravity=smart"))
        let smartAgain = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), "size=64&format=jpeg&gravity=smart"))
        #expect(centre.status == 200 && smart.status == 200)
        #expect(centre.header("etag") != smart.header("etag"))
        #expect(smartAgain.header("x-cache") == "memory" && smartAgain.header("etag") == smart.header("etag"))
        // Without gravity, the daemon's default: the variant's one set of defaults says smart, as
        // the shipped configuration's thumbnail.gravity does.
        let byDefault = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), "size=64&format=jpeg"))
        #expect(byDefault.header("etag") == smart.header("etag"))
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("Bad URLs are refused with 400 invalid_url or invalid_parameter")
    func badURLs() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true)
        #expect(try await daemon.get("/v1/thumbnail?size=10").problemCode == "invalid_parameter")
        #expect(try await daemon.get(daemon.thumbnailPath("ftp://example.com/a.jpg")).problemCode == "invalid_url")
        #expect(try await daemon.get(daemon.thumbnailPath("not a url")).problemCode == "invalid_url")
        let long = "http://127.0.0.1/" + String(repeating: "a", count: 3000)
        let reply = try await daemon.get(daemon.thumbnailPath(long))
        #expect(reply.status == 400)
        #expect(reply.problemCode == "invalid_parameter")
        #expect(try await daemon.get("/no/such/route").problemCode == "not_found")
        try await daemon.stop()
    }
}
