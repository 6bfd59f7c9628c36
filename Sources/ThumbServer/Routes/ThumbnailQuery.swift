import Foundation
import ThumbCache
import ThumbPipeline
import Thumbnailer

/// A validated `GET /v1/thumbnail` query: `url` (required), the variant (`VariantParameters`:
/// `size`, `fit`, `gravity` or `focus`, `trim`, `format`, `q`), and `sig` when signing is on. Unknown parameters are refused, so a typo (`sise=`) is not silently ignored.
struct ThumbnailQuery: Sendable {
    let url: NormalizedURL
    let size: Int
    let fit: Fit
    let gravity: Gravity
    let trim: Bool
    let format: ThumbnailSpec.Format
    let quality: Int

    static let known = Set(["url", URLSigner.parameter] + VariantParameters.names)

    init(_ parameters: QueryParameters, settings: ServerSettings, signer: URLSigner?) throws {
        if let unknown = parameters.pairs.first(where: { !Self.known.contains($0.0) }) {
            throw Problem.badParameter("unknown parameter \"\(unknown.0)\"; the parameters are url, "
                                       + VariantParameters.names.joined(separator: ", ")
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
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw Problem(.badRequest, code: "invalid_url", detail: "url must be an http or https URL")
        }
        do { url = try NormalizedURL(text) } catch {
            throw Problem(.badRequest, code: "invalid_url", detail: error.message)
        }
        let spec = try VariantParameters(parameters).spec(settings: settings)
        (size, fit, gravity, trim, format, quality) = (spec.size, spec.fit, spec.gravity, spec.trim, spec.format, spec.quality)
    }

    /// `format=auto` becomes AVIF for clients that accept it, else WebP for those that accept that
    /// (the response then varies by Accept).
    func spec(accept: String?) -> ThumbnailSpec {
        var format = format
        if format == .auto, let accept {
            if Self.accepts("image/avif", accept) { format = .avif } else if Self.accepts("image/webp", accept) { format = .webp }
        }
        return ThumbnailSpec(size: size, fit: fit, gravity: gravity, trim: trim, format: format, quality: quality)
    }

    /// Whether `accept` lists `type` without refusing it: a quality of 0 (`q=0`, `Q = 0.000`), as
    /// RFC 9110 writes it and as the fleet's nginx map reads it, so both put an answer in one class.
    static func accepts(_ type: String, _ accept: String) -> Bool {
        for item in accept.split(separator: ",") {
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.first?.lowercased() == type else { continue }
            let refused = fields.dropFirst().contains { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return pair.count == 2 && pair[0].lowercased() == "q" && Double(pair[1]) == 0
            }
            return !refused
        }
        return false
    }
}
