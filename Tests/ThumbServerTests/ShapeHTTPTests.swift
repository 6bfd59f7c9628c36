import Foundation
import ImageCodecs
import ImageCore
import TestOrigin
import Testing
import TestSupport

/// `size=WxH`, `fit=pad` with `bg`, `dpr` and `max_bytes` on `/v1/thumbnail`, against a real origin and daemon.
struct ShapeHTTPTests {
    static func problemDetail(_ reply: Reply) -> String {
        ((try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])?["detail"] as? String) ?? ""
    }

    @Test("every shape comes out at its pixel size, and its variant is its own cache entry")
    func shapes() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg), "/cut.png": .image(Images.cutOutPNG)])
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let url = origin.url("/p.jpg")
        for (query, width, height) in [("size=300x400", 300, 400), ("size=320x180&gravity=center", 320, 180),
                                       ("size=300x400&fit=contain", 300, 225), ("size=300x400&fit=pad", 300, 400),
                                       ("size=150x100&dpr=2", 300, 200), ("size=200&dpr=1.5&fit=pad&bg=blur", 300, 300)] {
            let reply = try await daemon.get(daemon.thumbnailPath(url, query))
            #expect(reply.status == 200, "\(query): \(reply.status) \(Self.problemDetail(reply))")
            let image = try ImageCodecs.decode(reply.body).pixels
            #expect((image.width, image.height) == (width, height), "\(query): \(image.width)x\(image.height)")
        }
        // dpr resolves to pixels: size=150x100&dpr=2 was the same variant as size=300x200.
        let same = try await daemon.get(daemon.thumbnailPath(url, "size=300x200"))
        #expect(same.header("x-cache") == "memory")
        // A cut-out product padded onto white is opaque JPEG under auto, its own clear corners laid
        // on white too; with bg=transparent, PNG with clear bands.
        let cutOut = origin.url("/cut.png")
        let white = try await daemon.get(daemon.thumbnailPath(cutOut, "size=400x200&fit=pad"))
        #expect(white.header("content-type") == "image/jpeg")
        let flattened = try ImageCodecs.decode(white.body).pixels
        for (x, y) in [(2, 100), (70, 10)] {
            let pixel = flattened.pixel(x: x, y: y)
            #expect(min(pixel.r, pixel.g, pixel.b) >= 245, "(\(x), \(y)) is \(pixel), not white")
        }
        let clear = try await daemon.get(daemon.thumbnailPath(cutOut, "size=400x200&fit=pad&bg=transparent"))
        #expect(clear.header("content-type") == "image/png")
        let pixels = try ImageCodecs.decode(clear.body).pixels
        #expect(pixels.pixel(x: 2, y: 100).a == 0 && pixels.pixel(x: 200, y: 100).a == 255)
        // Under a byte cap, a client that names WebP gets lossy WebP; one that does not (curl's */*)
        // gets PNG only if it fits, else 422: PNG has no quality to lower.
        let cappedPath = daemon.thumbnailPath(cutOut, "size=400x200&fit=pad&bg=transparent&max_bytes=20000")
        let webp = try await daemon.get(cappedPath, headers: [("Accept", "image/webp,*/*")])
        #expect(webp.status == 200 && webp.header("content-type") == "image/webp" && webp.body.count <= 20000)
        let anything = try await daemon.get(cappedPath, headers: [("Accept", "*/*")])
        #expect(anything.status == 422 && anything.problemCode == "budget_unreachable", "\(anything.status)")
        #expect(Self.problemDetail(anything).contains("lossless"))
        let pngOrJPEG = try await daemon.get(cappedPath, headers: [("Accept", "image/png,image/jpeg")])
        #expect(pngOrJPEG.status == 422 && pngOrJPEG.problemCode == "budget_unreachable")
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("max_bytes: the answer is never larger, and a cap no quality meets is 422 budget_unreachable")
    func byteCap() async throws {
        // A photo-like picture with detail everywhere, so quality decides its size.
        let photo = try ImageCodecs.encode(PhonePhoto.synthetic(width: 1200, height: 800, seed: 7), .jpeg(quality: 92))
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(photo)])
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let url = origin.url("/p.jpg")
        let free = try await daemon.get(daemon.thumbnailPath(url, "size=600x400&format=jpeg&q=95"))
        #expect(free.status == 200)
        let cap = free.body.count / 3
        let capped = try await daemon.get(daemon.thumbnailPath(url, "size=600x400&format=jpeg&q=95&max_bytes=\(cap)"))
        #expect(capped.status == 200 && capped.body.count <= cap && capped.body.count > cap / 3, "\(capped.body.count) of \(cap)")
        #expect(try ImageCodecs.decode(capped.body).pixels.width == 600)
        let tiny = try await daemon.get(daemon.thumbnailPath(url, "size=600x400&format=jpeg&max_bytes=500"))
        #expect(tiny.status == 422 && tiny.problemCode == "budget_unreachable", "\(tiny.status)")
        #expect(Self.problemDetail(tiny).contains("max_bytes=500"))
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("a bad shape is 400 invalid_parameter naming its parameter, before any download", arguments: [
        ("size=0x400", "size"), ("size=300x", "size"), ("size=300x400x2", "size"), ("size=4000x10", "size"),
        ("fit=pad&bg=zzz", "bg"), ("dpr=0", "dpr"), ("max_bytes=-1", "max_bytes"), ("fit=pad&gravity=smart", "gravity"),
        ("bg=ffffff", "bg"), ("fit=stretch", "fit"),
    ])
    func refusals(_ query: String, _ parameter: String) async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), query))
        #expect(reply.status == 400 && reply.problemCode == "invalid_parameter", "\(query): \(reply.status)")
        #expect(Self.problemDetail(reply).contains(parameter), "\(query): \(Self.problemDetail(reply))")
        #expect(origin.totalRequests == 0)
        try await daemon.stop()
        try await origin.shutdown()
    }
}
