import HTTPTypes
import Hummingbird

/// The inspector's own files, compiled into the binary (Package.swift embeds them), so the page
/// works offline with nothing fetched from anywhere but the daemon.
enum InspectorPage {
    struct Asset: Sendable {
        let bytes: [UInt8]
        let contentType: String

        /// The file with the page's headers: never cached unchecked, never sniffed, run only under the policy.
        func response() -> Response {
            var headers = HTTPFields()
            headers[.contentType] = contentType
            headers[.cacheControl] = "no-cache"
            headers[.contentSecurityPolicy] = InspectorPage.contentSecurityPolicy
            headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
            headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }

    static let assets: [String: Asset] = [
        "/ui": Asset(bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8"),
        "/ui/inspector.js": Asset(bytes: PackageResources.inspector_js, contentType: "text/javascript; charset=utf-8"),
        "/ui/inspector.css": Asset(bytes: PackageResources.inspector_css, contentType: "text/css; charset=utf-8"),
    ]

    /// Only the daemon's own script, styles and images; no inline script, no frames, no plugins.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func response(_ path: String) throws -> Response {
        guard let asset = assets[path] else { throw Problem.notFound("no such file: \(path)") }
        return asset.response()
    }
}
