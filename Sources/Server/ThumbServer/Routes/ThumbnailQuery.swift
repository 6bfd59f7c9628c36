import ThumbVariant
import Foundation
import ObjectStorage
import ThumbCache
import ThumbPipeline
import Thumbnailer

/// A validated `GET /v1/thumbnail` query: `url` (required), the variant (read by `VariantParser`),
/// and `sig` when signing is on. Unknown parameters are refused, so a typo (`sise=`) is not silently ignored.
struct ThumbnailQuery: Sendable {
    let url: NormalizedURL
    /// As asked: `format=auto` stays auto until a client's Accept is known (`variant.negotiated(accept:)`).
    let variant: Variant

    static let others: Set<String> = ["url", URLSigner.parameter]
    /// The parameters the route documents: its own and the variant's (whose other spellings,
    /// `quality` and `background`, are taken too).
    static let known = others.union(VariantParser.names)

    init(_ parameters: QueryParameters, settings: ServerSettings, signer: URLSigner?) throws {
        if let unknown = parameters.pairs.first(where: { !Self.others.contains($0.0) && !VariantParser.isVariantName($0.0) }) {
            throw Problem.badParameter("unknown parameter \"\(unknown.0)\"; the parameters are url, "
                                       + VariantParser.names.joined(separator: ", ")
                                       + (signer != nil ? " and sig" : ""))
        }
        if let signer {
            guard parameters[URLSigner.parameter] != nil else {
                throw Problem(.forbidden, code: "signature_required", detail: "this daemon only serves signed URLs: add sig=")
            }
            guard signer.isValid(parameters.pairs) else {
                throw Problem(.forbidden, code: "invalid_signature", detail: "sig does not match the other parameters")
            }
        }
        guard let text = parameters["url"], !text.isEmpty else {
            throw Problem.badParameter("url is required: /v1/thumbnail?url=https://…&size=200")
        }
        guard text.utf8.count <= settings.maxURLLength else {
            throw Problem.badParameter("url is \(text.utf8.count) bytes long; the limit is \(settings.maxURLLength)")
        }
        url = try Self.source(text)
        variant = try settings.variant(VariantFields(query: parameters.pairs), ignoring: Self.others)
    }

    /// A photo's address as a request names it: an http(s) URL, or `s3://BUCKET/KEY` (checked
    /// here, so a malformed one is the client's 400, not a failed download).
    static func source(_ text: String) throws -> NormalizedURL {
        let lowered = text.lowercased()
        let isS3 = S3Location.isS3(text)
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || isS3 else {
            throw Problem(.badRequest, code: "invalid_url", detail: "url must be an http, https or s3://BUCKET/KEY URL")
        }
        if isS3 {
            do { _ = try S3Location(text) } catch { throw Problem(.badRequest, code: "invalid_url", detail: error.message) }
        }
        do { return try NormalizedURL(text) } catch {
            throw Problem(.badRequest, code: "invalid_url", detail: error.message)
        }
    }
}
