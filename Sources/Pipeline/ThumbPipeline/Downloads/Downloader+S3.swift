import AsyncHTTPClient
import Foundation
import NIOCore
import ObjectStorage
import ThumbCache

/// `s3://BUCKET/KEY` sources: a GET signed with SigV4 for the bucket's endpoint and credentials.
/// The endpoint is the operator's, so the address policy does not apply; redirects are not
/// followed (S3 answers one only for a wrong region or endpoint, which is a setting to fix).
extension Downloader {
    static func location(_ url: String) throws(DownloadError) -> S3Location {
        do { return try S3Location(url) } catch { throw DownloadError(.invalidURL, error.message) }
    }

    func fetchObject(_ location: S3Location, validators: CacheValidators?, priority: PriorityCell) async throws -> DownloadOutcome {
        if let refusal = settings.s3.refusal(of: location.bucket) { throw DownloadError(.bucketNotAllowed, refusal) }
        let target = settings.s3.target(for: location.bucket)
        let signed = target.request("GET", key: location.key)
        try await slots.acquire(host: signed.authority, priority: priority)
        defer { slots.release(host: signed.authority) }

        var request = HTTPClientRequest(url: signed.url)
        for (name, value) in signed.headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = validators?.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }

        let name = location.description
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: .distantFuture)
        } catch {
            throw Self.translate(error, url: "\(name) at \(target.endpoint)", phase: "connecting")
        }
        let status = Int(response.status.code)
        switch status {
        case 200:
            return .fetched(try await body(of: response, from: name))
        case 304 where validators != nil:
            return .notModified(Self.validators(response.headers) ?? validators ?? CacheValidators())
        default:
            // An error document is small; past its limit the rest is not read (the connection closes).
            var errorBytes: [UInt8] = []
            for try await chunk in response.body {
                errorBytes.append(contentsOf: chunk.readableBytesView.prefix(S3ErrorBody.maxBytes - errorBytes.count))
                if errorBytes.count >= S3ErrorBody.maxBytes { break }
            }
            throw Self.objectError(S3ErrorBody(errorBytes), status: status, name: name, target: target)
        }
    }

    /// S3's answer in thumbd's codes. Messages name the object, the endpoint and S3's own code,
    /// never a credential.
    static func objectError(_ body: S3ErrorBody, status: Int, name: String, target: S3Target) -> DownloadError {
        let said = body.code.map { " (\($0)\(body.message.map { ": " + $0 } ?? ""))" } ?? ""
        if body.isMissing || (body.code == nil && status == 404) {
            return DownloadError(.objectNotFound, "\(name) does not exist at \(target.endpoint)\(said)", originStatus: status)
        }
        if body.isDenied || (body.code == nil && status == 403) {
            let whose = target.credentials.map { "the \($0)" } ?? "an unsigned request (no credentials are set: AWS_ACCESS_KEY_ID or sources.s3)"
            return DownloadError(.objectAccessDenied, "\(target.endpoint) refused \(whose) for \(name)\(said)", originStatus: status)
        }
        return DownloadError(.originStatus, "\(target.endpoint) answered \(status) for \(name)\(said)", originStatus: status)
    }
}
