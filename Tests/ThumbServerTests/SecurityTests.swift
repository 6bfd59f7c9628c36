import Foundation
import TestOrigin
import Testing
import ThumbServer

@Suite("Signed URLs and the admin token")
struct SecurityTests {
    @Test("With a signing key, only correctly signed thumbnail URLs are served")
    func signedURLs() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start { $0.server.signingKey = "test-key-123" }
        let url = origin.url("/p.jpg")
        let signer = URLSigner(key: "test-key-123")
        let query = signer.signedQuery([("url", url), ("size", "64")])
        let good = try await daemon.get("/v1/thumbnail?" + query)
        #expect(good.status == 200)

        let tampered = query.replacingOccurrences(of: "size=64", with: "size=65")
        let bad = try await daemon.get("/v1/thumbnail?" + tampered)
        #expect(bad.status == 403)
        #expect(bad.problemCode == "invalid_signature")

        let wrongKey = URLSigner(key: "another-key").signedQuery([("url", url), ("size", "64")])
        #expect(try await daemon.get("/v1/thumbnail?" + wrongKey).problemCode == "invalid_signature")

        let unsigned = try await daemon.get(daemon.thumbnailPath(url))
        #expect(unsigned.status == 403)
        #expect(unsigned.problemCode == "signature_required")
        #expect(origin.requestCount("/p.jpg") == 1)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("The signature does not depend on parameter order")
    func canonicalOrder() {
        let signer = URLSigner(key: "k")
        let a = signer.signature(for: [("url", "http://a/b.jpg?x=1&y=2"), ("size", "64"), ("fit", "cover")])
        let b = signer.signature(for: [("fit", "cover"), ("url", "http://a/b.jpg?x=1&y=2"), ("size", "64")])
        let c = signer.signature(for: [("fit", "cover"), ("url", "http://a/b.jpg?x=1&y=3"), ("size", "64")])
        #expect(a == b)
        #expect(a != c)
        #expect(!a.contains("=") && !a.contains("+") && !a.contains("/"))
    }

    @Test("Admin routes need the bearer token, and are off without one")
    func adminToken() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start { $0.server.adminToken = "s3cret" }
        let url = origin.url("/p.jpg")
        #expect(try await daemon.get(daemon.thumbnailPath(url)).status == 200)
        let evictPath = "/v1/cache/entries?url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"

        let missing = try await daemon.get(evictPath, method: .DELETE)
        #expect(missing.status == 401)
        #expect(missing.problemCode == "unauthorized")
        #expect(missing.header("www-authenticate")?.hasPrefix("Bearer") == true)
        let wrong = try await daemon.get(evictPath, headers: [("Authorization", "Bearer nope")], method: .DELETE)
        #expect(wrong.status == 401)
        #expect(daemon.cache.memory.stats.entries == 1)

        let allowed = try await daemon.get(evictPath, headers: [("Authorization", "Bearer s3cret")], method: .DELETE)
        #expect(allowed.status == 200)
        let removed = try JSONSerialization.jsonObject(with: Data(allowed.body)) as? [String: Any]
        #expect((removed?["removed"] as? [String: Int])?["memory"] == 1)
        #expect(daemon.cache.memory.stats.entries == 0)
        #expect(try daemon.cache.disk?.entries().isEmpty == true)
        try await daemon.stop()

        let closed = try await TestDaemon.start(memoryOnly: true)
        let off = try await closed.get(evictPath, headers: [("Authorization", "Bearer s3cret")], method: .DELETE)
        #expect(off.status == 403)
        #expect(off.problemCode == "admin_disabled")
        try await closed.stop()
        try await origin.shutdown()
    }
}
