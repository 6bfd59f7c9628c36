import Hummingbird

/// The HTTP API as an OpenAPI 3.1 document (`OpenAPI/openapi.yaml`), compiled into the binary
/// like the inspector's files and served at `GET /openapi.yaml` with the same headers, so the
/// document a client reads is the one this build was tested against: OpenAPITests hold its
/// paths and methods equal to the router's routes.
enum OpenAPIDocument {
    static let file = InspectorPage.Asset(bytes: PackageResources.openapi_yaml, contentType: "application/yaml")

    static func response() -> Response { file.response() }
}
