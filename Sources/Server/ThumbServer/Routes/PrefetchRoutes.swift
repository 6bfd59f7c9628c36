import ThumbVariant
import Foundation
import Hummingbird
import ThumbPipeline

/// `POST /v1/prefetch`, `GET /v1/prefetch`, `GET /v1/prefetch/{id}`, `DELETE /v1/prefetch/{id}`.
///
/// The body is one of: `{"urls":[…]}`; a product-list page as the marketplace API sends it
/// (`{"page_no":1,"pages":[{"thumbnail":…,"images":[{"url":…}]}],"has_next":…}`); or
/// `{"page_url":"…","pages":N}`. Beside it: the variant's parameters (`size` as a number or "WxH", or
/// `sizes`, several of them made from one decode of each photo; `fit`, `bg`, `dpr`, `max_bytes`…, as for thumbnails; `trim` a JSON boolean) and
/// `include_images` (detail images too, not only thumbnails). With a signing key configured, the
/// daemon only fetches what signed URLs name, so starting a job then needs the admin token.
struct PrefetchRoutes: Sendable {
    let prefetcher: Prefetcher
    let settings: ServerSettings
    let admin: AdminGuard
    static let maxBodyBytes = 8 << 20

    func submit(_ request: Request) async throws -> Response {
        if settings.signingKey != nil { try admin.check(request) }
        let body = try await request.body.collect(upTo: Self.maxBodyBytes)
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw Problem(.badRequest, code: "invalid_json", detail: "the body must be a JSON object: {\"urls\":[…]}, a product-list page, or {\"page_url\":…}")
        }
        let variants = try Self.variants(object, settings: settings)
        let includeImages = object["include_images"] as? Bool ?? false
        let source: Prefetcher.Source
        if let urls = object["urls"] {
            guard let list = urls as? [Any] else { throw Problem.badParameter("urls must be an array of strings") }
            source = .urls(list.map { ($0 as? String) ?? String(describing: $0) })
        } else if let pageURL = object["page_url"] {
            guard let text = pageURL as? String else { throw Problem.badParameter("page_url must be a string") }
            // A `pages` that is not a whole number (text, an object, true) is refused, not read as 1:
            // the job would quietly fetch another number of pages than the client meant.
            let pages: Int
            // Read as the variant's numbers are, so a JSON true is not taken for 1.
            switch object["pages"].flatMap({ VariantFields(object: ["pages": $0])["pages"] }) {
            case nil: pages = 1
            case .number(let number) where number.rounded() == number && abs(number) < 1e9: pages = Int(number)
            default: throw Problem.badParameter("pages must be a whole number from 1 to \(prefetcher.settings.maxPages)")
            }
            guard (1...prefetcher.settings.maxPages).contains(pages) else {
                throw Problem.badParameter("pages must be between 1 and \(prefetcher.settings.maxPages)")
            }
            source = .pageURL(text, pages: pages, includeImages: includeImages)
        } else if object["pages"] is [Any] {
            do {
                let page = try JSONDecoder().decode(ProductListPage.self, from: Data(buffer: body))
                source = .page(page, includeImages: includeImages)
            } catch {
                throw Problem(.badRequest, code: "invalid_json", detail: "not a product-list page: \(error)")
            }
        } else {
            throw Problem.badParameter("the body needs urls, pages (a product-list page) or page_url")
        }
        let status: PrefetchStatus
        do { status = try prefetcher.submit(source, variants: variants) } catch {
            switch error.code {
            case .tooManyURLs: throw Problem(.contentTooLarge, code: error.code.rawValue, detail: error.message)
            case .tooManyJobs: throw Problem(.tooManyRequests, code: error.code.rawValue, detail: error.message, retryAfter: 5)
            case .noURLs: throw Problem.badParameter(error.message)
            }
        }
        var response = try JSONResponse.make(status, status: .accepted)
        response.headers[.location] = "/v1/prefetch/\(status.id)"
        return response
    }

    func status(_ id: String) throws -> Response {
        guard let status = prefetcher.status(id) else { throw Problem.notFound("no prefetch job \(id) (finished jobs are kept for a while, then dropped)") }
        return try JSONResponse.make(status)
    }

    func list() throws -> Response {
        try JSONResponse.make(["jobs": prefetcher.list()])
    }

    /// Cancels a running job and forgets it (a later GET or DELETE of the id is 404); answers the
    /// job's last report.
    func delete(_ id: String, _ request: Request) async throws -> Response {
        if settings.signingKey != nil { try admin.check(request) }
        guard let status = await prefetcher.remove(id) else { throw Problem.notFound("no prefetch job \(id)") }
        return try JSONResponse.make(status)
    }

    /// The variant, read by the parser `/v1/thumbnail` reads its query with; the body's other
    /// fields (the URLs, a product-list page's own) are not the variant's.
    static func variant(_ object: [String: Any], settings: ServerSettings) throws -> Variant {
        try settings.variant(VariantFields(object: object.filter { VariantParser.isVariantName($0.key) }))
    }

    /// The job's variants: one, or with `sizes` (instead of `size`) one per size, each read as
    /// `size` is beside the body's other variant fields.
    static func variants(_ object: [String: Any], settings: ServerSettings) throws -> [Variant] {
        guard let sizes = object["sizes"] else { return [try variant(object, settings: settings)] }
        guard object["size"] == nil else { throw Problem.badParameter("give size or sizes, not both") }
        guard let list = sizes as? [Any], (1...Prefetcher.maxSizes).contains(list.count) else {
            throw Problem.badParameter("sizes must be an array of 1 to \(Prefetcher.maxSizes) sizes, each a number or \"WxH\" as for size")
        }
        // The same size written twice is refused, as the schema's uniqueItems says; two spellings
        // of one box are made once (`Prefetcher.distinct`).
        var written = Set<String>()
        return try list.map { size in
            guard written.insert("\(type(of: size)):\(size)").inserted else { throw Problem.badParameter("sizes names \(size) twice") }
            var fields = object
            fields["size"] = size
            return try Self.variant(fields, settings: settings)
        }
    }
}
