import ObjectStorage
import Testing

struct S3LocationTests {
    @Test func bucketAndDecodedKey() throws {
        let location = try S3Location("s3://shop-photos/products/12/a%20b.jpg")
        #expect(location.bucket == "shop-photos")
        #expect(location.key == "products/12/a b.jpg")
        #expect(location.description == "s3://shop-photos/products/12/a%20b.jpg")
        #expect(S3Location.isS3("S3://x/y"))
        #expect(!S3Location.isS3("https://x/y"))
    }

    @Test("refused", arguments: [
        "s3://shop-photos", "s3://shop-photos/", "s3://Shop/key", "s3://ab/key", "s3://-bucket/key", "s3://bucket-/key",
        "s3://bucket/key?versionId=1", "s3://bucket/key#x", "s3://bucket/%zz", "https://bucket/key",
    ])
    func refused(_ text: String) {
        #expect(throws: S3LocationError.self) { try S3Location(text) }
    }

    @Test func aKeyOverS3sLimitIsRefused() {
        #expect(throws: S3LocationError.self) { try S3Location("s3://bucket/" + String(repeating: "k", count: 1025)) }
        #expect(throws: Never.self) { try S3Location("s3://bucket/" + String(repeating: "k", count: 1024)) }
    }
}
