import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// RFC 9110 §15.5.6: a path the daemon has, asked with a method it lacks, is 405 with `Allow`
/// naming the methods it has; a path it does not have is 404. Every path and method comes from the
/// document the daemon serves, so a route added to it is checked without touching this test.
@Suite struct MethodNotAllowedTests {
    /// Every method HTTP/1.1 clients send in practice.
    static let methods: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .DELETE, .PATCH, .OPTIONS, .TRACE]

    @Test("every documented path answers 405 with Allow to the methods it lacks, and HEAD wherever it has GET",
          .requires(Python.has("yaml"), Python.missing("yaml")))
    func methodsEachPathLacks() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let served = try await daemon.get("/openapi.yaml")
        #expect(served.status == 200)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-openapi-\(UUID().uuidString).yaml")
        try Data(served.body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let document = try #require(try Python.json(ofYAML: file) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        #expect(paths.count >= 10, "the served document lists \(paths.count) paths")

        var checked = 0
        for (template, item) in paths.sorted(by: { $0.key < $1.key }) {
            var documented = Set(item.keys.map { $0.uppercased() }.filter { name in Self.methods.contains { $0.rawValue == name } })
            if documented.contains("GET") { documented.insert("HEAD") }
            // A path parameter gets a value of its documented shape (a prefetch job id).
            let path = template.replacingOccurrences(of: "{id}", with: "0123456789ab")
            for method in Self.methods where !documented.contains(method.rawValue) {
                let reply = try await daemon.get(path, method: method)
                #expect(reply.status == 405, "\(method.rawValue) \(path): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
                // A HEAD answer has no body to carry the problem document; its status and Allow say it.
                if method != .HEAD { #expect(reply.problemCode == "method_not_allowed", "\(method.rawValue) \(path)") }
                let allow = Set((reply.header("allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(allow == documented, "\(method.rawValue) \(path): Allow \(reply.header("allow") ?? "absent"), documented \(documented.sorted())")
                checked += 1
            }
            if documented.contains("GET") {
                // HEAD is GET without the body: the same status (without parameters each of these
                // answers the same every time), never a refusal of the method.
                let get = try await daemon.get(path)
                let head = try await daemon.get(path, method: .HEAD)
                #expect(head.status == get.status, "HEAD \(path): \(head.status), GET: \(get.status)")
                #expect(head.body.isEmpty, "HEAD \(path) answered a body")
            }
        }
        // 21 paths, most with one method of eight: well over a hundred refusals.
        #expect(checked > 100, "only \(checked) method refusals were checked")
        try await daemon.stop()
    }

    @Test("HEAD of a GET route answers GET's status and headers without the body")
    func headMirrorsGet() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let get = try await daemon.get("/healthz")
        let head = try await daemon.get("/healthz", method: .HEAD)
        #expect(get.status == 200 && head.status == 200)
        #expect(head.header("content-type") == get.header("content-type"))
        #expect(head.body.isEmpty && !get.body.isEmpty)
        try await daemon.stop()
    }

    @Test("a path the daemon does not have is 404 not_found whatever the method, with no Allow")
    func unknownPathIsNotFound() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true)
        for path in ["/v1/no-such-route", "/v1/prefetch/0123456789ab/more", "/v2/thumbnail"] {
            for method in [HTTPMethod.GET, .PUT, .DELETE] {
                let reply = try await daemon.get(path, method: method)
                #expect(reply.status == 404, "\(method.rawValue) \(path): \(reply.status)")
                #expect(reply.problemCode == "not_found", "\(method.rawValue) \(path)")
                #expect(reply.header("allow") == nil, "\(method.rawValue) \(path) has Allow")
            }
        }
        try await daemon.stop()
    }
}
