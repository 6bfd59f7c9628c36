import Foundation
import HTTPTypes
import Hummingbird
import UploadPreparation

/// An RFC 9457 problem document: every error the API gives is one, with a stable `code`.
public struct Problem: Error, Sendable, Codable, HTTPResponseError {
    public var type: String
    public var title: String
    public var statusCode: Int
    public var detail: String
    public var code: String
    /// Seconds, sent as `Retry-After` (busy).
    public var retryAfter: Int?
    /// Sent with `Connection: close` (the server is closing the connection after it).
    public var closesConnection = false
    /// The upload image at fault (position from 1, and name), for upload refusals.
    public var image: ImageReference?
    /// The methods the path answers, sent as `Allow` (405 only).
    public var allow: String?
    /// The request headers the refusal depends on, sent as `Vary` (406 only: `Accept`).
    public var vary: String?

    public init(_ status: HTTPResponse.Status, code: String, detail: String, retryAfter: Int? = nil) {
        type = "urn:thumbd:problem:\(code)"
        title = status.reasonPhrase
        statusCode = status.code
        self.detail = detail
        self.code = code
        self.retryAfter = retryAfter
    }

    enum CodingKeys: String, CodingKey {
        case type, title, detail, code, image
        case statusCode = "status"
    }

    public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    /// `format=auto` for a client whose Accept takes none of the formats it answers.
    static var notAcceptable: Problem {
        var problem = Problem(.notAcceptable, code: "not_acceptable",
                              detail: "format=auto answers JPEG or PNG (AVIF or WebP to clients that name them); this Accept header takes none of them: "
                                  + "send one that takes image/jpeg and image/png (or */*), or name a format with format=")
        problem.vary = "Accept"
        return problem
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/problem+json"
        headers[.cacheControl] = "no-store"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if closesConnection { headers[.connection] = "close" }
        if statusCode == 401 { headers[.wwwAuthenticate] = "Bearer realm=\"thumbd admin\"" }
        if let allow { headers[.allow] = allow }
        if let vary { headers[.vary] = vary }
        let body = (try? Self.encoder.encode(self)) ?? Data("{\"code\":\"\(code)\"}".utf8)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    // Common problems.
    public static func badParameter(_ detail: String) -> Problem { Problem(.badRequest, code: "invalid_parameter", detail: detail) }
    public static func notFound(_ detail: String) -> Problem { Problem(.notFound, code: "not_found", detail: detail) }
    /// 405 for a path that exists without this method; `allowed` are the methods it has.
    public static func methodNotAllowed(_ method: String, allowed: [String]) -> Problem {
        var problem = Problem(.methodNotAllowed, code: "method_not_allowed",
                              detail: "this path does not answer \(method); it answers \(allowed.joined(separator: ", "))")
        problem.allow = allowed.joined(separator: ", ")
        return problem
    }
}
