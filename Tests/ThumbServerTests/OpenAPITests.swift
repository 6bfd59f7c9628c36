import ChildProcess
import Foundation
import Testing
import TestSupport
@testable import ThumbServer

/// The OpenAPI document kept in the repo and served at /openapi.yaml stays true to the daemon:
/// its paths and methods are exactly the router's routes, the routes that refuse unknown query
/// parameters document exactly the ones they know, the document is valid OpenAPI 3.1, and the
/// daemon serves this very file.
///
/// YAML is read by Python's PyYAML (the package's own YAML parser, Yams, is not a dependency the
/// tests may import); without it, the tests that need it are skipped, saying so.
@Suite struct OpenAPITests {
    static let document = TestPaths.packageRoot.appendingPathComponent("Sources/Server/ThumbServer/OpenAPI/openapi.yaml")
    static let operationKeys: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    @Test("every route the daemon registers is documented, and every documented operation is a route",
          .requires(Python.has("yaml"), Python.missing("yaml")))
    func pathsAreTheRoutes() async throws {
        let paths = try Self.paths()
        var documented: Set<String> = []
        for (path, item) in paths {
            for key in item.keys where Self.operationKeys.contains(key) { documented.insert("\(key.uppercased()) \(path)") }
        }

        let daemon = try await TestDaemon.start(memoryOnly: true)
        let registered = Self.routes(of: daemon.daemon)
        try await daemon.stop()

        // Compared as text: Hummingbird writes a capture `{id}`, as OpenAPI's path templates do.
        #expect(registered.contains("GET /v1/prefetch/{id}"), "the router's path form has changed: \(registered.sorted())")
        #expect(registered.subtracting(documented).isEmpty,
                "routes missing from openapi.yaml: \(registered.subtracting(documented).sorted())")
        #expect(documented.subtracting(registered).isEmpty,
                "openapi.yaml documents operations the router does not have: \(documented.subtracting(registered).sorted())")
    }

    @Test("the routes that refuse unknown query parameters document exactly the ones they accept",
          .requires(Python.has("yaml"), Python.missing("yaml")))
    func refusingRoutesDocumentTheirParameters() throws {
        let document = try #require(try Python.json(ofYAML: Self.document) as? [String: Any])
        let shared = ((document["components"] as? [String: Any])?["parameters"] as? [String: Any]) ?? [:]
        let paths = try Self.paths()
        for (path, method, known) in [("/v1/thumbnail", "get", ThumbnailQuery.known), ("/v1/uploads/prepare", "post", UploadRoutes.known)] {
            let operation = try #require(paths[path]?[method] as? [String: Any], "\(method) \(path) is not documented")
            let parameters = try ((operation["parameters"] as? [[String: Any]]) ?? []).map { parameter in
                guard let reference = parameter["$ref"] as? String else { return parameter }
                let name = String(reference.split(separator: "/").last ?? "")
                return try #require(shared[name] as? [String: Any], "\(path): \(reference) names no shared parameter")
            }
            let query = try Set(parameters.filter { $0["in"] as? String == "query" }.flatMap { try Self.queryNames(of: $0, in: document) })
            #expect(query == known, "\(method) \(path): documented \(query.sorted()), the code accepts \(known.sorted())")
        }
    }

    @Test("openapi.yaml is a valid OpenAPI 3.1 document (openapi-spec-validator)",
          .requires(Python.has("openapi_spec_validator") && Python.has("yaml"), Python.missing("openapi_spec_validator")))
    func documentIsValid() throws {
        let document = try #require(try Python.json(ofYAML: Self.document) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let script = "import sys, yaml\nfrom openapi_spec_validator import validate\nvalidate(yaml.safe_load(open(sys.argv[1], encoding='utf-8')))"
        let result = try ChildProcess.run("python3", ["-c", script, Self.document.path], timeoutSeconds: 120)
        // The validator's last lines name the rule and the place in the document.
        #expect(result.status == 0 && !result.timedOut, "\(result.stderrText.split(separator: "\n").suffix(12).joined(separator: "\n"))")
    }

    @Test("GET /openapi.yaml serves the repo's file, as application/yaml, with preset taking exactly the configured names",
          arguments: [[String](), ["grid"], ["card", "grid"]])
    func servesTheDocument(_ presets: [String]) async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true) { settings in
            for name in presets { settings.server.variants.presets[name] = PresetHTTPTests.grid }
        }
        let reply = try await daemon.get("/openapi.yaml")
        try await daemon.stop()
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "application/yaml")
        let file = String(decoding: try TestPaths.bytes(Self.document), as: UTF8.self)
        let marker = "pattern: '^[a-z0-9_-]{1,64}$'  # configured preset names"
        #expect(file.components(separatedBy: marker).count == 3, "both preset schemas carry the marker line")
        let schema = presets.isEmpty ? "not: {}" : "enum: [" + presets.map { "'\($0)'" }.joined(separator: ", ") + "]"
        let served = String(decoding: reply.body, as: UTF8.self)
        #expect(served == file.replacingOccurrences(of: marker, with: schema),
                "the served document (\(reply.body.count) bytes) is not the repo's with the preset names")
    }

    /// The query names a parameter stands for: its own name, or for an object spread over the query
    /// (`style: form`, `explode: true`, which these routes use for parameters that depend on one
    /// another) its properties' names.
    static func queryNames(of parameter: [String: Any], in document: [String: Any]) throws -> [String] {
        var schema = parameter["schema"] as? [String: Any] ?? [:]
        if let reference = schema["$ref"] as? String {
            let name = String(reference.split(separator: "/").last ?? "")
            let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
            schema = try #require(schemas?[name] as? [String: Any], "\(reference) names no schema")
        }
        guard schema["type"] as? String == "object" else { return [try #require(parameter["name"] as? String)] }
        #expect(parameter["style"] as? String == "form" && parameter["explode"] as? Bool == true,
                "\(parameter["name"] ?? "?"): an object in the query must be spread over it (style form, explode true)")
        return ((schema["properties"] as? [String: Any]) ?? [:]).keys.sorted()
    }

    /// `paths` of the document: each path's item, its keys the methods (and `parameters`, …).
    static func paths() throws -> [String: [String: Any]] {
        let document = try #require(try Python.json(ofYAML: document) as? [String: Any])
        return try #require(document["paths"] as? [String: [String: Any]], "openapi.yaml has no paths object")
    }

    /// "METHOD /path" of every route of the router the daemon serves with, built as `Daemon.run` builds it.
    static func routes(of daemon: Daemon) -> Set<String> {
        let router = daemon.makeRouter(thumbnails: ThumbnailRoute(pipeline: daemon.pipeline, settings: daemon.settings.server,
                                                                  metrics: daemon.metrics))
        return Set(router.routes.map { "\($0.method.rawValue) \($0.path)" })
    }
}

/// python3 and its modules, for reading YAML and validating the document.
enum Python {
    static func has(_ module: String) -> Bool {
        guard ChildProcess.isInstalled("python3"),
              let result = try? ChildProcess.run("python3", ["-c", "import \(module)"], timeoutSeconds: 60) else { return false }
        return result.status == 0
    }

    static func missing(_ module: String) -> Comment {
        Comment(rawValue: "python3 with the \(module) module is not installed (apt-get install python3-yaml; pip install "
                + "openapi-spec-validator): this OpenAPI test cannot run")
    }

    /// The YAML file as Foundation's JSON objects.
    static func json(ofYAML file: URL) throws -> Any {
        let script = "import json, sys, yaml\njson.dump(yaml.safe_load(open(sys.argv[1], encoding='utf-8')), sys.stdout)"
        let result = try ChildProcess.run("python3", ["-c", script, file.path], timeoutSeconds: 60)
        guard result.status == 0, !result.timedOut else { throw TestFailure("PyYAML could not read \(file.path): \(result.stderrText)") }
        return try JSONSerialization.jsonObject(with: Data(result.stdout))
    }
}
