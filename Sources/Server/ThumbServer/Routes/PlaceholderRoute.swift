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

    func handle(_ request: Request, context: ThumbdRequestContext) async throws -> Response {
        let parsed = try thumbnails.queries.parse(request.uri.query)
        // The variant this client's thumbnail is (AVIF, WebP or JPEG for format=auto), so asking for
        // both makes one thumbnail. The placeholder is the same in every format: a client whose
        // Accept takes no image format still gets it, from the variant as asked.
        let target = parsed.target(accept: request.headers[.accept]) ?? parsed.plain
        let key = target.key
        if !parsed.confirmsHits, let photo = thumbnails.pipeline.cache.freshMetadata(key)?.photo {
            return try respond(Placeholder(key: key, photo: photo), closing: false)
        }
        let placeholder: Placeholder
        let wait = await ClientWait(request, context: context)
        do {
            let (pipeline, priority, signed) = (thumbnails.pipeline, ThumbnailRoute.priority(of: request), parsed.signed)
            placeholder = try await wait.run { try await pipeline.placeholder(target, priority: priority, signed: signed) }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            var problem = Problem.from(error, retryAfter: thumbnails.settings.retryAfterSeconds)
            problem.closesConnection = wait.closesConnection
            throw problem
        }
        return try respond(placeholder, closing: wait.closesConnection)
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
