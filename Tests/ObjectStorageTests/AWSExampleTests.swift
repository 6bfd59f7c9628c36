import Foundation
@testable import ObjectStorage
import Testing

/// The signer against the worked examples in AWS's S3 documentation ("Signature Calculations for
/// the Authorization Header" and "Authenticating Requests: Using Query Parameters"): the published
/// canonical request, string to sign and signature, for the documentation's example key pair.
struct AWSExampleTests {
    static let credentials = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
    let signer = SigV4Signer(credentials: credentials, region: "us-east-1")

    @Test func getObjectWithRangeMatchesThePublishedSignature() throws {
        let headers = signer.signedHeaders(method: "GET", path: "/test.txt",
                                           headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9")], at: Self.date)
        let canonical = CanonicalRequest(method: "GET", path: "/test.txt", query: [],
                                         headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9")]
                                            + headers.filter { $0.0 != "Authorization" },
                                         payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(canonical.text == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(signer.stringToSign(canonical, stamp: AmzDate(Self.date)) == """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        let authorization = try #require(headers.first { $0.0 == "Authorization" }?.1)
        #expect(authorization == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func presignedGetMatchesThePublishedSignature() throws {
        let query = signer.presignedQuery(method: "GET", path: "/test.txt", host: "examplebucket.s3.amazonaws.com", expires: 86400, at: Self.date)
        #expect(query.map(\.0) == ["X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Signature"])
        #expect(query.first { $0.0 == "X-Amz-Signature" }?.1 == "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test func aChangedSecretOrRegionChangesTheSignature() {
        func signature(_ signer: SigV4Signer) -> String? {
            signer.signedHeaders(method: "GET", path: "/test.txt", headers: [("host", "examplebucket.s3.amazonaws.com")], at: Self.date)
                .first { $0.0 == "Authorization" }?.1
        }
        let other = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ")
        #expect(signature(signer) != signature(SigV4Signer(credentials: other, region: "us-east-1")))
        #expect(signature(signer) != signature(SigV4Signer(credentials: Self.credentials, region: "eu-west-1")))
    }

    @Test func aSessionTokenIsSentAndSigned() throws {
        let temporary = S3Credentials(accessKeyID: "ASIAEXAMPLE", secretAccessKey: "secret", sessionToken: "token/with+chars=")
        let headers = SigV4Signer(credentials: temporary, region: "us-east-1")
            .signedHeaders(method: "GET", path: "/k", headers: [("host", "b.s3.amazonaws.com")], at: Self.date)
        #expect(headers.contains { $0.0 == "x-amz-security-token" && $0.1 == "token/with+chars=" })
        let authorization = try #require(headers.first { $0.0 == "Authorization" }?.1)
        #expect(authorization.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))
    }

    @Test func theEncodingKeepsOnlyUnreservedCharacters() {
        #expect(SigV4Encoding.encode("photos/a b+c~d_e.f-g/ü.jpg", keepingSlashes: true) == "photos/a%20b%2Bc~d_e.f-g/%C3%BC.jpg")
        #expect(SigV4Encoding.encode("a/b=c&d") == "a%2Fb%3Dc%26d")
    }

    @Test func credentialsNeverShowTheirSecret() {
        let text = "\(S3Credentials(accessKeyID: "AKIDSHOWN", secretAccessKey: "very-secret", sessionToken: "tok-secret"))"
        #expect(text.contains("AKIDSHOWN"))
        #expect(!text.contains("very-secret") && !text.contains("tok-secret"))
    }
}
