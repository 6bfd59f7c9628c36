import Foundation
import ObjectStorage
import Testing

struct S3SettingsTests {
    @Test func theAWSVariablesAreRead() throws {
        let settings = try S3Settings.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "SECRET", "AWS_SESSION_TOKEN": "TOKEN",
            "AWS_REGION": "eu-central-1", "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:8333", "AWS_ENDPOINT_URL": "http://ignored:1",
        ])
        #expect(settings.region == "eu-central-1")
        #expect(settings.endpoint?.description == "http://127.0.0.1:8333")
        #expect(settings.credentials == S3Credentials(accessKeyID: "AKID", secretAccessKey: "SECRET", sessionToken: "TOKEN"))
        let fallback = try S3Settings.fromEnvironment(["AWS_DEFAULT_REGION": "ap-south-1", "AWS_ENDPOINT_URL": "https://minio.internal"])
        #expect(fallback.region == "ap-south-1")
        #expect(fallback.endpoint?.description == "https://minio.internal")
        #expect(fallback.credentials == nil)
    }

    @Test func halfAKeyPairIsRefused() {
        #expect(throws: S3SettingsError.self) { try S3Settings.fromEnvironment(["AWS_ACCESS_KEY_ID": "AKID"]) }
        #expect(throws: S3SettingsError.self) { try S3Settings.fromEnvironment(["AWS_SECRET_ACCESS_KEY": "S"]) }
    }

    @Test("bad endpoints", arguments: ["ftp://host", "http://", "http://host/path", "http://u:p@host", "not a url"])
    func badEndpoints(_ text: String) {
        #expect(throws: S3SettingsError.self) { try S3Endpoint(text) }
    }

    @Test func awsUsesTheBucketsHostAndACustomEndpointThePath() throws {
        var settings = S3Settings()
        settings.region = "eu-west-1"
        let aws = settings.target(for: "photos").request("GET", key: "a b/c.jpg")
        #expect(aws.url == "https://photos.s3.eu-west-1.amazonaws.com/a%20b/c.jpg")
        #expect(aws.headers.first { $0.0 == "host" }?.1 == "photos.s3.eu-west-1.amazonaws.com")
        #expect(!aws.headers.contains { $0.0 == "Authorization" })  // no credentials: unsigned
        let dotted = settings.target(for: "photos.shop").request("GET", key: "k")
        #expect(dotted.url == "https://s3.eu-west-1.amazonaws.com/photos.shop/k")

        settings.endpoint = try S3Endpoint("http://127.0.0.1:8333")
        settings.credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "SECRET")
        settings.buckets["archive"] = S3BucketSettings(region: "us-west-2", endpoint: try S3Endpoint("https://r2.example:8443"), pathStyle: false)
        let local = settings.target(for: "photos").request("GET", key: "k.jpg")
        #expect(local.url == "http://127.0.0.1:8333/photos/k.jpg")
        #expect(local.headers.first { $0.0 == "host" }?.1 == "127.0.0.1:8333")
        #expect(local.headers.first { $0.0 == "Authorization" }?.1.contains("/eu-west-1/s3/aws4_request") == true)
        let archive = settings.target(for: "archive")
        #expect(archive.region == "us-west-2")
        #expect(archive.request("GET", key: "k").url == "https://archive.r2.example:8443/k")
        #expect(archive.credentials?.accessKeyID == "AKID")
    }

    @Test func s3ErrorBodiesAreRead() {
        let body = S3ErrorBody(Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>x</Key></Error>
            """.utf8))
        #expect(body.code == "NoSuchKey" && body.message == "The specified key does not exist.")
        #expect(body.isMissing && !body.isDenied)
        #expect(S3ErrorBody(Array("<Error><Code>SignatureDoesNotMatch</Code></Error>".utf8)).isDenied)
        #expect(S3ErrorBody(Array("not xml".utf8)).code == nil)
    }
}
