import Foundation
import Testing
import TestSupport

/// Presigned URLs of one object are one cache entry and one download, and the key without the
/// signature opens nothing: a hit is answered only after the origin accepts the request's own URL
/// (304 to a conditional GET). Against a real S3 server (SeaweedFS) signing with botocore.
@Suite(.serialized, .requires(S3TestServer.ready, "\(S3TestServer.missing)"))
struct PresignedURLTests {
    @Test("Two presigned URLs: one download, the second a hit after its 304; forged and expired ones refused, even when cached")
    func presignedURLs() async throws {
        let server = try S3TestServer.start()
        defer { server.stop() }
        try server.makeBucket("private-photos")
        try server.put(bucket: "private-photos", key: "p/1.jpg", bytes: Images.jpeg)
        let daemon = try await TestDaemon.start()

        let first = try server.presign(bucket: "private-photos", key: "p/1.jpg", seconds: 600)
        try await Task.sleep(for: .seconds(1.1))  // X-Amz-Date changes each second: a second signature
        let second = try server.presign(bucket: "private-photos", key: "p/1.jpg", seconds: 600)
        #expect(first != second)

        let made = try await daemon.get(daemon.thumbnailPath(first, "size=100"))
        #expect(made.status == 200, "\(String(decoding: made.body, as: UTF8.self))")
        #expect(made.header("x-cache") == "miss")
        let again = try await daemon.get(daemon.thumbnailPath(second, "size=100"))
        #expect(again.status == 200)
        #expect(again.header("x-cache") == "memory")
        #expect(again.header("x-cache-revalidated") == "304")
        #expect(again.body == made.body)
        var metrics = try await daemon.metrics()
        #expect(metrics["thumbd_jobs_started_total"] == 1)
        #expect(metrics["thumbd_signed_url_checks_total"] == 1)
        #expect(metrics["thumbd_signed_url_checks_changed_total"] == 0)
        // The same URL asked again is checked again: the signature may have expired meanwhile.
        #expect(try await daemon.get(daemon.thumbnailPath(second, "size=100")).header("x-cache-revalidated") == "304")
        // Its placeholder names the object, never the signature or the key's signed mark.
        let placeholder = try await daemon.get("/v1/placeholder?url=\(second.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&size=100")
        #expect(placeholder.status == 200)
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(placeholder.body)) as? [String: Any])
        #expect(shown["url"] as? String == server.endpoint + "/private-photos/p/1.jpg")

        // Another size of the object: made from the kept original, but only once this URL is accepted.
        let otherSize = try await daemon.get(daemon.thumbnailPath(second, "size=60"))
        #expect(otherSize.status == 200 && otherSize.header("x-cache") == "miss")

        let forged = second.replacing(#/X-Amz-Signature=[0-9a-f]{8}/#) { _ in "X-Amz-Signature=00000000" }
        #expect(forged != second)
        for url in [forged] {
            let refused = try await daemon.get(daemon.thumbnailPath(url, "size=100"))
            #expect(refused.status == 403)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("\"url_refused\""))
            let placeholder = try await daemon.get("/v1/placeholder?url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&size=100")
            #expect(placeholder.status == 403)
        }
        let unsigned = try await daemon.get(daemon.thumbnailPath(server.endpoint + "/private-photos/p/1.jpg", "size=100"))
        #expect(unsigned.status != 200)

        let shortLived = try server.presign(bucket: "private-photos", key: "p/1.jpg", seconds: 1)
        try await Task.sleep(for: .seconds(2.5))
        let expired = try await daemon.get(daemon.thumbnailPath(shortLived, "size=100"))
        #expect(expired.status == 403)
        #expect(String(decoding: expired.body, as: UTF8.self).contains("\"url_refused\""))
        metrics = try await daemon.metrics()
        // The forged URL's thumbnail and placeholder, and the expired URL.
        #expect(metrics["thumbd_signed_url_checks_refused_total"] == 3)
        // The first size, the second, and the unsigned URL's (an entry of its own, refused by the bucket).
        #expect(metrics["thumbd_jobs_started_total"] == 3)
        try await daemon.stop()

        // Turned off (a daemon guarded otherwise): any signature reads the cached copy.
        let trusting = try await TestDaemon.start { $0.pipeline.confirmUnkeyedHits = false }
        #expect(try await trusting.get(trusting.thumbnailPath(second, "size=100")).status == 200)
        let trusted = try await trusting.get(trusting.thumbnailPath(forged, "size=100"))
        #expect(trusted.status == 200 && trusted.header("x-cache") == "memory")
        try await trusting.stop()
    }
}
