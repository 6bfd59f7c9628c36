import Foundation
import ObjectStorage
import Testing
import ThumbdConfig
import ThumbPipeline

/// `sources.s3`: its keys (file or THUMBD_SOURCES_S3_*), the AWS_* variables for what they leave
/// unset, and per-bucket differences from the file.
struct SourcesConfigurationTests {
    static let home = ["HOME": "/home/tester"]

    func load(_ yaml: String?, _ environment: [String: String] = [:]) async throws -> ThumbdConfiguration {
        guard let yaml else { return try await ThumbdConfiguration.load(environment: Self.home.merging(environment) { $1 }) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-sources-\(UUID().uuidString).yaml")
        try yaml.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await ThumbdConfiguration.load(file: url.path, environment: Self.home.merging(environment) { $1 })
    }

    @Test func theAWSVariablesFillWhatTheSettingsLeave() async throws {
        let aws = ["AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "SECRETENV", "AWS_REGION": "eu-west-3",
                   "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000"]
        let fromEnvironment = try await load(nil, aws).daemon.download.s3
        #expect(fromEnvironment.credentials == S3Credentials(accessKeyID: "AKIDENV", secretAccessKey: "SECRETENV"))
        #expect(fromEnvironment.region == "eu-west-3")
        #expect(fromEnvironment.target(for: "photos").request("GET", key: "k").url == "http://127.0.0.1:9000/photos/k")

        let yaml = """
            sources:
              s3:
                region: us-west-2
                endpoint: https://minio.internal:9443
                path_style: false
                access_key_id: AKIDFILE
                secret_access_key: SECRETFILE
                buckets:
                  archive-eu: { region: eu-central-1, endpoint: "http://10.0.0.9:9000", path_style: true }
            """
        let both = try await load(yaml, aws).daemon.download.s3
        #expect(both.credentials?.accessKeyID == "AKIDFILE")
        #expect(both.region == "us-west-2")
        #expect(both.target(for: "photos").request("GET", key: "k").url == "https://photos.minio.internal:9443/k")
        let archive = both.target(for: "archive-eu")
        #expect(archive.region == "eu-central-1" && archive.request("GET", key: "k").url == "http://10.0.0.9:9000/archive-eu/k")
        #expect(archive.credentials?.accessKeyID == "AKIDFILE")

        let overridden = try await load(yaml, ["THUMBD_SOURCES_S3_REGION": "ap-east-1"]).daemon.download.s3
        #expect(overridden.region == "ap-east-1")
    }

    /// The buckets s3:// URLs may read: the listed ones (an entry may be empty), every one with
    /// any_bucket, never the shared tier's.
    @Test func onlyListedBucketsAreSources() async throws {
        let none = try await load(nil).daemon.download.s3
        #expect(!none.anyBucket)
        #expect(none.refusal(of: "photos")?.contains("sources.s3.buckets") == true)

        let listed = try await load("""
            sources:
              s3:
                buckets:
                  photos: {}
                  archive:
            cache:
              shared: s3://thumbd-results/fleet
            """).daemon.download.s3
        #expect(listed.refusal(of: "photos") == nil && listed.refusal(of: "archive") == nil)
        #expect(listed.refusal(of: "other") != nil)
        #expect(listed.refusal(of: "thumbd-results")?.contains("cache.shared") == true)

        let open = try await load("cache:\n  shared: s3://thumbd-results\n", ["THUMBD_SOURCES_S3_ANY_BUCKET": "true"]).daemon.download.s3
        #expect(open.anyBucket && open.refusal(of: "anything") == nil)
        #expect(open.refusal(of: "thumbd-results") != nil)
    }

    @Test func theSharedTierIsRead() async throws {
        #expect(try await load(nil).daemon.pipeline.shared == nil)
        let shared = try #require(try await load("cache:\n  shared: s3://thumbd-results/fleet/eu/\n  shared_timeout: 0.5\n").daemon.pipeline.shared)
        #expect(shared.bucket == "thumbd-results" && shared.prefix == "fleet/eu" && shared.readTimeout == .milliseconds(500))
        let bare = try #require(try await load(nil, ["THUMBD_CACHE_SHARED": "s3://results"]).daemon.pipeline.shared)
        #expect(bare.bucket == "results" && bare.prefix == "")
    }

    @Test("mistakes name their key", arguments: [
        ("cache:\n  shared: https://bucket/x\n", "cache.shared"),
        ("cache:\n  shared: s3://Bad_Bucket/x\n", "cache.shared"),
        ("cache:\n  shared: s3://bucket/a?b\n", "cache.shared"),
        ("sources:\n  s3:\n    endpoint: ftp://x\n", "sources.s3.endpoint"),
        ("sources:\n  s3:\n    access_key_id: A\n", "sources.s3.access_key_id and sources.s3.secret_access_key"),
        ("sources:\n  s3:\n    buckets:\n      Bad_Name: { region: x }\n", "sources.s3.buckets.Bad_Name"),
        ("sources:\n  s3:\n    buckets:\n      good: { regoin: x }\n", "unknown key \"regoin\""),
        ("sources:\n  s3:\n    buckets:\n      good: { path_style: maybe }\n", "sources.s3.buckets.good.path_style"),
    ])
    func mistakes(_ yaml: String, _ named: String) async throws {
        var error: ConfigError?
        do { _ = try await load(yaml) } catch let caught as ConfigError { error = caught }
        #expect(error?.message.contains(named) == true, "\(String(describing: error))")
    }
}
