import Foundation
import Hummingbird

/// The HTTP API as an OpenAPI 3.1 document (`OpenAPI/openapi.yaml`), compiled into the binary
/// like the inspector's files and served at `GET /openapi.yaml` with the same headers, so the
/// document a client reads is the one this build was tested against: OpenAPITests hold its
/// paths and methods equal to the router's routes.
enum OpenAPIDocument {
    /// The line the repo's file gives each `preset` schema; the daemon serves its own names there.
    static let presetLine = "pattern: '^[a-z0-9_-]{1,64}$'  # configured preset names"

    /// The document as this daemon serves it: `preset` takes exactly the configured names (a
    /// client, or a tester generating requests from the document, then never sends one the
    /// daemon must refuse); with none configured, no value is valid.
    static func served(presets: [String]) -> InspectorPage.Asset {
        let file = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)
        let names = presets.sorted().map { "'\($0)'" }.joined(separator: ", ")
        let schema = presets.isEmpty ? "not: {}" : "enum: [\(names)]"
        let text = file.replacingOccurrences(of: presetLine, with: schema)
        return InspectorPage.Asset(bytes: Array(text.utf8), contentType: "application/yaml")
    }
}
