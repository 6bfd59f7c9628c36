import ThumbVariant
import ByteUnits
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import ThumbPipeline
import Thumbnailer
import UploadForms
import UploadPreparation

/// `POST /v1/uploads/prepare`: a seller's originals in (multipart/form-data, `images` file parts and
/// an optional `params` JSON part), the prepared photos out, as the client asks:
/// - `response=multipart` (or `Accept: multipart/form-data`): the marketplace's registration body,
///   its boundary in Content-Type, ready to forward;
/// - `response=json` (the default): the manifest, each image's bytes base64 in `data`.
/// Query parameters adjust the configured rules: `square`, `budget` (300KiB), `max_side`, `format`
/// (jpeg|webp), `pass_through`; `extra_size` (repeated, up to 4) adds smaller copies of each photo
/// to the JSON answer. The body is read under the request and per-image caps as it
/// streams; a sixth image is refused at its part's headers. Decoding and encoding run on the CPU
/// pool, never on the threads that answer requests.
final class UploadRoutes: Sendable {
    let settings: UploadSettings
    let maxRequestBytes: Int
    let maxConcurrent: Int
    let pool: CPUPool
    let metrics: UploadMetrics
    let retryAfter: Int
    private let running = Mutex(0)

    static let known: Set<String> = ["square", "gravity", "focus", "size", "fit", "bg", "budget", "max_side", "extra_size", "format", "pass_through", "response"]

    init(settings: UploadSettings, maxRequestBytes: Int, maxConcurrent: Int, pool: CPUPool, metrics: UploadMetrics, retryAfter: Int) {
        self.metrics = metrics
        self.settings = settings
        self.maxRequestBytes = maxRequestBytes
        self.maxConcurrent = maxConcurrent
        self.pool = pool
        self.retryAfter = retryAfter
    }

    func prepare(_ request: Request) async throws -> Response {
        let query = QueryParameters(request.uri.query)
        let rules = try Self.rules(query, base: settings)
        let multipart = try Self.wantsMultipart(query, accept: request.headers[.accept])
        if multipart, !rules.extraSides.isEmpty {
            throw Problem.badParameter("the registration body holds the prepared photos only: ask for the extra sizes with response=json")
        }
        try enter()
        defer { running.withLock { $0 -= 1 } }

        let form = try await read(request, rules: rules)
        // Checked before any image is decoded: the multipart answer cannot be made without them.
        var params: ProductParams?
        if multipart {
            guard let json = form.params else {
                throw UploadError(.invalidUpload, "the multipart answer is a registration body: add a `params` part with the product JSON")
            }
            params = try ProductParams(json: json)
        }
        let start = ContinuousClock.now
        let pool = pool
        let priority = PriorityCell(.interactive)
        let decodes = metrics.decodes
        let images = try await UploadPreparer.prepare(form.images, settings: rules, onDecode: { _ in decodes.increment() }) { work in
            try await pool.run(priority: priority, work)
        }
        metrics.record(images)
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        if let params {
            let body = try RegistrationForm.body(params: params, images: images)
            headers[.contentType] = body.contentType
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body.bytes)))
        }
        let manifest = UploadManifest(settings: rules, images: images, includingData: true,
                                      elapsedSeconds: (ContinuousClock.now - start).secondsValue)
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try manifest.json())))
    }

    /// The body through the form reader; a refusal mid-stream closes the connection, since the
    /// rest of an oversized upload is not read.
    private func read(_ request: Request, rules: UploadSettings) async throws -> UploadForm {
        let limits = UploadFormLimits(maxImages: rules.maxImages, maxImageBytes: rules.maxImageBytes, maxRequestBytes: maxRequestBytes)
        do {
            let reader = try UploadFormReader(contentType: request.headers[.contentType], limits: limits)
            try reader.checkAnnouncedLength(request.headers[.contentLength].flatMap { Int($0) })
            for try await buffer in request.body {
                try reader.consume(buffer)
            }
            return try reader.finish()
        } catch let error as UploadError {
            var problem = Problem.from(error, retryAfter: retryAfter)
            problem.closesConnection = true
            throw problem
        }
    }

    private func enter() throws {
        let admitted = running.withLock { count in
            guard count < maxConcurrent else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw Problem(.serviceUnavailable, code: "busy",
                          detail: "\(maxConcurrent) uploads are being prepared; try again shortly", retryAfter: retryAfter)
        }
    }

    static func rules(_ query: QueryParameters, base: UploadSettings) throws -> UploadSettings {
        if let unknown = query.pairs.first(where: { !known.contains($0.0) }) {
            throw Problem.badParameter("unknown parameter \"\(unknown.0)\"; the parameters are \(known.sorted().joined(separator: ", "))")
        }
        var rules = base
        if let text = query["square"] { rules.square = try QueryParameters.flag("square", text) }
        do {
            if let gravity = try Gravity.requested(gravity: query["gravity"], focus: query["focus"]) { rules.gravity = gravity }
        } catch { throw Problem.badParameter(error.message) }
        do {
            if let box = try VariantParser.uploadBox(VariantFields(query: query.pairs), maxSide: UploadSettings.sideRange.upperBound) {
                rules.shape = UploadShape(width: box.width, height: box.height, fit: box.fit, background: box.background ?? .white)
            }
        } catch { throw Problem(error) }
        if let text = query["pass_through"] { rules.passThrough = try QueryParameters.flag("pass_through", text) }
        if let text = query["budget"] {
            guard let bytes = ByteSize.parse(text), bytes > 0 else {
                throw Problem.badParameter("budget must be a byte count like 300KiB or 307200, not \"\(text)\"")
            }
            rules.budgetBytes = bytes
        }
        if let text = query["max_side"] {
            let side = try Self.side("max_side", text)
            rules.maxSide = side
            rules.minSide = min(rules.minSide, side)
        }
        // Repeated for each extra size, as a form or query list is.
        let extraSides = query.pairs.filter { $0.0 == "extra_size" }.map(\.1)
        if !extraSides.isEmpty { rules.extraSides = try extraSides.map { try Self.side("extra_size", $0) } }
        if let text = query["format"] {
            guard let format = UploadSettings.OutputFormat(rawValue: text.lowercased()) else {
                throw Problem.badParameter("format must be jpeg or webp, not \"\(text)\"")
            }
            rules.format = format
        }
        try rules.validate()
        return rules
    }

    /// A side in pixels, as `max_side` and `extra_size` take it.
    private static func side(_ name: String, _ text: String) throws -> Int {
        guard let side = Int(text), UploadSettings.sideRange.contains(side) else {
            throw Problem.badParameter("\(name) must be \(UploadSettings.sideRange.lowerBound)...\(UploadSettings.sideRange.upperBound), not \"\(text)\"")
        }
        return side
    }

    static func wantsMultipart(_ query: QueryParameters, accept: String?) throws -> Bool {
        switch query["response"]?.lowercased() {
        case "multipart"?: return true
        case "json"?: return false
        case let other?: throw Problem.badParameter("response must be multipart or json, not \"\(other)\"")
        case nil: return accept?.lowercased().contains("multipart/form-data") ?? false
        }
    }
}
