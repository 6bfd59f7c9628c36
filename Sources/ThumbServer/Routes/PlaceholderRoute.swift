import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ThumbPipeline

/// `GET /v1/placeholder?url=…`: the photo's displayed size, ThumbHash and average colour, as JSON.
/// It takes the thumbnail route's parameters (and signature): the placeholder comes with the
/// thumbnail they name, made by the same coalesced job when it is not cached yet.
struct PlaceholderRoute: Sendable {
    let thumbnails: ThumbnailRoute

    func handle(_ request: Request) async throws -> Response {
        let parsed = try thumbnails.queries.parse(request.uri.query)
        let key = parsed.plainKey
        let placeholder: Placeholder
        do {
            placeholder = try await request.body.consumeWithCancellationOnInboundClose { _ in
                try await thumbnails.pipeline.placeholder(key, spec: parsed.spec(for: key), priority: ThumbnailRoute.priority(of: request))
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            var problem = Problem.from(error, retryAfter: thumbnails.settings.retryAfterSeconds)
            problem.closesConnection = true
            throw problem
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        // As stable as the thumbnail it comes with.
        headers[.cacheControl] = "public, max-age=\(thumbnails.settings.cacheMaxAgeSeconds)"
        headers[.connection] = "close"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(placeholder))))
    }
}
