import ChildProcess
import Foundation
import ObjectStorage
import Testing
import TestSupport

/// The signer against botocore (AWS's own signer in Python) on requests it has never seen: random
/// keys (spaces, Unicode, reserved characters), query parameters, extra headers with runs of spaces,
/// session tokens, regions and dates; header and presigned forms alike.
struct BotocoreCrossCheckTests {
    struct Case: Codable {
        var method: String
        var endpoint: String
        var key: String
        var query: [[String]]
        var headers: [[String]]
        var region: String
        var access_key: String
        var secret_key: String
        var token: String?
        var epoch: Int
        var presign: Int?
    }

    static func randomCase(_ random: inout SeededRandom, presign: Bool) -> Case {
        let pieces = ["photos", "a b", "ü", "x+y", "100%", "é/è", "~tilde", "(1)", "star*", "a=b&c", "喵", "semi;colon", "dot.", "-_."]
        let key = (0..<Int.random(in: 1...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined(separator: "/") + ".jpg"
        let names = ["versionId", "response-content-type", "x-id", "partNumber", "a b", "ü"]
        let query = presign ? [] : (0..<Int.random(in: 0...2, using: &random)).map { _ in
            [names.randomElement(using: &random)!, pieces.randomElement(using: &random)!]
        }
        var headers: [[String]] = []
        if !presign, Bool.random(using: &random) { headers.append(["Range", "bytes=0-\(Int.random(in: 1...99999, using: &random))"]) }
        if !presign, Bool.random(using: &random) { headers.append(["X-Amz-Meta-Note", "two  spaces   here"]) }
        let regions = ["us-east-1", "eu-west-1", "ap-southeast-2", "auto"]
        return Case(method: presign ? "GET" : ["GET", "HEAD", "DELETE"].randomElement(using: &random)!,
                    endpoint: ["https://shop.s3.eu-west-1.amazonaws.com", "http://127.0.0.1:8333/bucket-a", "https://r2.example:8443/b"]
                        .randomElement(using: &random)!,
                    key: key, query: query, headers: headers, region: regions.randomElement(using: &random)!,
                    access_key: "AKID\(Int.random(in: 1000...9999, using: &random))",
                    secret_key: String((0..<40).map { _ in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789/+".randomElement(using: &random)! }),
                    token: Bool.random(using: &random) ? "FwoGZXIvYXdzE+token/\(Int.random(in: 0...99999, using: &random))=" : nil,
                    epoch: Int.random(in: 1_500_000_000...1_900_000_000, using: &random), presign: presign ? Int.random(in: 1...604_800, using: &random) : nil)
    }

    /// What ours makes for `c`: the Authorization header, or the X-Amz-Signature of the presigned form.
    static func ours(_ c: Case) -> String {
        let endpoint = URLComponents(string: c.endpoint)!
        let host = endpoint.port.map { "\(endpoint.host!):\($0)" } ?? endpoint.host!
        let path = endpoint.path + "/" + c.key
        let signer = SigV4Signer(credentials: S3Credentials(accessKeyID: c.access_key, secretAccessKey: c.secret_key, sessionToken: c.token),
                                 region: c.region)
        let date = Date(timeIntervalSince1970: TimeInterval(c.epoch))
        if let expires = c.presign {
            return signer.presignedQuery(method: c.method, path: path, host: host, expires: expires, at: date).first { $0.0 == "X-Amz-Signature" }!.1
        }
        let headers = [("host", host)] + c.headers.map { ($0[0], $0[1]) }
        return signer.signedHeaders(method: c.method, path: path, query: c.query.map { ($0[0], $0[1]) }, headers: headers, at: date)
            .first { $0.0 == "Authorization" }!.1
    }

    @Test(.requires(S3TestServer.botocoreReady, "botocore is not installed in .build/s3-venv (make s3-deps): the cross-check cannot run"))
    func agreesWithBotocore() throws {
        var random = SeededRandom(seed: 20261127)
        var cases: [Case] = []
        for i in 0..<120 { cases.append(Self.randomCase(&random, presign: i % 3 == 0)) }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("sigv4-cases-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: input) }
        let encoder = JSONEncoder()
        var lines: [String] = []
        for c in cases { lines.append(String(decoding: try encoder.encode(c), as: UTF8.self)) }
        try lines.joined(separator: "\n").write(to: input, atomically: true, encoding: .utf8)
        let run = try ChildProcess.run(S3TestServer.python, [S3TestServer.referenceScript, "sign"], timeoutSeconds: 120, standardInput: input.path)
        #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")
        let theirs = run.stdoutText.split(separator: "\n").map(String.init)
        try #require(theirs.count == cases.count)
        for (c, reference) in zip(cases, theirs) {
            let mine = Self.ours(c)
            if c.presign != nil {
                let signature = URLComponents(string: reference)?.queryItems?.first { $0.name == "X-Amz-Signature" }?.value
                #expect(mine == signature, "presigned \(c.method) \(c.endpoint) \(c.key) \(c.region)")
            } else {
                // botocore writes ", " between the parts as we do.
                #expect(mine == reference, "\(c.method) \(c.endpoint) \(c.key) \(c.query) \(c.headers)")
            }
        }
    }
}
