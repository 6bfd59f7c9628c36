import Foundation
import ImageCodecs
import NetworkGuard
import ObjectStorage
import Testing
import TestSupport

/// `url=s3://BUCKET/KEY` against a real S3 server on loopback (SeaweedFS), with a private bucket:
/// thumbd signs its GETs with SigV4. The endpoint is reached although the address policy blocks
/// loopback (an operator's endpoint is not a user's URL), and each failure has its own code.
@Suite(.serialized, .requires(S3TestServer.ready, "\(S3TestServer.missing)"))
struct S3SourceTests {
    static func settings(_ server: S3TestServer, secret: String = S3TestServer.secretKey) throws -> S3Settings {
        var s3 = S3Settings()
        s3.endpoint = try S3Endpoint(server.endpoint)
        s3.credentials = S3Credentials(accessKeyID: S3TestServer.accessKey, secretAccessKey: secret)
        s3.buckets = ["shop-photos": S3BucketSettings(), "no-such-bucket": S3BucketSettings()]
        return s3
    }

    @Test("Thumbnails of a private bucket's objects; a wrong secret, a missing key and a dead endpoint each get their code")
    func privateBucket() async throws {
        let server = try S3TestServer.start()
        defer { server.stop() }
        try server.makeBucket("shop-photos")
        try server.put(bucket: "shop-photos", key: "products/12/main photo.jpg", bytes: Images.jpeg)

        // Loopback is blocked for URLs (the default policy), not for the configured endpoint.
        let daemon = try await TestDaemon.start { settings in
            settings.download.policy = AddressPolicy()
            settings.download.s3 = try! Self.settings(server)
        }
        let url = "s3://shop-photos/products/12/main%20photo.jpg"
        let first = try await daemon.get(daemon.thumbnailPath(url, "size=120&format=png"))
        #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
        #expect(first.header("x-cache") == "miss")
        let image = try ImageCodecs.decode(first.body).pixels
        #expect(image.width == 120 && image.height == 120)
        #expect(try await daemon.get(daemon.thumbnailPath(url, "size=120&format=png")).header("x-cache") == "memory")

        let missing = try await daemon.get(daemon.thumbnailPath("s3://shop-photos/products/12/gone.jpg"))
        #expect(missing.status == 404)
        #expect(String(decoding: missing.body, as: UTF8.self).contains("\"object_not_found\""))
        let noBucket = try await daemon.get(daemon.thumbnailPath("s3://no-such-bucket/a.jpg"))
        #expect(noBucket.status == 404)
        #expect(String(decoding: noBucket.body, as: UTF8.self).contains("\"object_not_found\""))
        let malformed = try await daemon.get(daemon.thumbnailPath("s3://Bad_Bucket/a.jpg"))
        #expect(malformed.status == 400)
        #expect(String(decoding: malformed.body, as: UTF8.self).contains("\"invalid_url\""))
        try await daemon.stop()

        let wrongSecret = "not-the-secret-0123456789"
        let refused = try await TestDaemon.start { settings in settings.download.s3 = try! Self.settings(server, secret: wrongSecret) }
        let denied = try await refused.get(refused.thumbnailPath("s3://shop-photos/products/12/other.jpg"))
        let deniedText = String(decoding: denied.body, as: UTF8.self)
        #expect(denied.status == 502)
        #expect(deniedText.contains("\"object_access_denied\"") && deniedText.contains("SignatureDoesNotMatch"), "\(deniedText)")
        #expect(!deniedText.contains(wrongSecret))
        #expect(!(try await refused.get("/metrics")).body.contains(subsequence: Array(wrongSecret.utf8)))
        try await refused.stop()

        let unsigned = try await TestDaemon.start { settings in
            settings.download.s3.endpoint = try! S3Endpoint(server.endpoint)
            settings.download.s3.buckets["shop-photos"] = S3BucketSettings()
        }
        let anonymous = try await unsigned.get(unsigned.thumbnailPath("s3://shop-photos/products/12/main%20photo.jpg"))
        #expect(anonymous.status == 502)
        #expect(String(decoding: anonymous.body, as: UTF8.self).contains("no credentials are set"))
        try await unsigned.stop()

        server.kill()
        let orphan = try await TestDaemon.start { settings in settings.download.s3 = try! Self.settings(server) }
        let unreachable = try await orphan.get(orphan.thumbnailPath("s3://shop-photos/products/12/third.jpg"))
        #expect(unreachable.status == 502)
        #expect(String(decoding: unreachable.body, as: UTF8.self).contains("\"origin_unreachable\""))
        try await orphan.stop()
    }

    @Test("Only listed buckets are read: another bucket, or the shared tier's, is refused before the store is asked")
    func onlyListedBuckets() async throws {
        let server = try S3TestServer.start()
        defer { server.stop() }
        // The shared tier's bucket need not exist: the refusal comes before the store is asked (it
        // would say object_not_found otherwise).
        for bucket in ["shop-photos", "private-archive"] {
            try server.makeBucket(bucket)
            try server.put(bucket: bucket, key: "a.jpg", bytes: Images.jpeg)
        }
        let listed = try await TestDaemon.start { settings in
            settings.download.s3 = try! Self.settings(server)
            settings.download.s3.reservedBucket = "thumbd-results"
        }
        #expect(try await listed.get(listed.thumbnailPath("s3://shop-photos/a.jpg")).status == 200)
        for bucket in ["private-archive", "thumbd-results"] {
            let refused = try await listed.get(listed.thumbnailPath("s3://\(bucket)/a.jpg"))
            let text = String(decoding: refused.body, as: UTF8.self)
            #expect(refused.status == 403, "\(bucket): \(text)")
            #expect(text.contains("\"bucket_not_allowed\""), "\(text)")
        }
        try await listed.stop()

        // any_bucket opens every bucket but the shared tier's.
        let open = try await TestDaemon.start { settings in
            settings.download.s3 = try! Self.settings(server)
            settings.download.s3.buckets = [:]
            settings.download.s3.anyBucket = true
            settings.download.s3.reservedBucket = "thumbd-results"
        }
        #expect(try await open.get(open.thumbnailPath("s3://private-archive/a.jpg")).status == 200)
        #expect(try await open.get(open.thumbnailPath("s3://thumbd-results/a.jpg")).status == 403)
        try await open.stop()
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard !subsequence.isEmpty, count >= subsequence.count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<$0 + subsequence.count]) == subsequence }
    }
}
