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
        // The variant this client's thumbnail is (AVIF, WebP or JPEG for format=auto), so asking for
        // both makes one thumbnail.
        let key = parsed.key(accept: request.headers[.accept])
        if let photo = thumbnails.pipeline.cache.freshMetadata(key)?.photo {
            return try respond(Placeholder(url: key.url.value, photo: photo), closing: false)
        }
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
        // Watching for the client to leave consumed the request stream: the connection closes after.
        return try respond(placeholder, closing: true)
    }

    private func respond(_ placeholder: Placeholder, closing: Bool) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        // As stable as the thumbnail it comes with; the same for every format of it, so no Vary.
        headers[.cacheControl] = "public, max-age=\(thumbnails.settings.cacheMaxAgeSeconds)"
        if closing { headers[.connection] = "close" }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(placeholder))))
    }
}
