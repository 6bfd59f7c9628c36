import Foundation
import Synchronization
import ThumbCache

/// One thumbnail the load asks for: the daemon's path for it, and the cache key it is stored under.
struct CrashRequest: Sendable, Hashable, Codable {
    /// The image's URL at the origin.
    var url: String
    /// The variant as the index writes it ("200/cover/jpeg/q82").
    var variant: String
    /// `/v1/thumbnail?url=…` with every parameter explicit, so the body is the stored file's bytes.
    var path: String
    /// The cache key's SHA-256: the entry's file name under objects/.
    var digest: String
}

/// The URLs of a run: photo k mod count, each made a URL of its own by `?n=k`, at a size and format
/// that also follow from k. Every URL handed out is new, so every one is a download and a decode.
final class CrashURLPlan: Sendable {
    static let sizes = [96, 160, 200, 320]

    let originPort: Int
    let photos: [String]
    private let counter = BenchCounter()

    init(originPort: Int, photos: [String]) {
        self.originPort = originPort
        self.photos = photos
    }

    /// A URL no one has asked for yet in this run.
    func fresh() -> CrashRequest { request(counter.take()) }

    func request(_ k: Int) -> CrashRequest {
        let photo = photos[k % photos.count]
        let name = photo.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? photo
        let url = "http://127.0.0.1:\(originPort)/\(name)?n=\(k)"
        // The size moves on once per pass over the photos, so each photo comes at every size.
        let size = Self.sizes[(k / photos.count) % Self.sizes.count]
        let format = k % 5 == 4 ? "webp" : "jpeg"
        // Every variant parameter explicit (gravity too): the key computed here must be the daemon's
        // whatever its configured defaults.
        let variant = CacheVariant(size: size, fit: "cover", format: format, quality: 82, gravity: CacheVariant.centerGravity)
        let path = "/v1/thumbnail?url=\(BenchHTTP.queryEscape(url))&size=\(size)&fit=cover&format=\(format)&q=82&gravity=center"
        let digest = (try? CacheKey(url: url, variant: variant))?.digest ?? ""
        return CrashRequest(url: url, variant: variant.description, path: path, digest: digest)
    }
}

/// Every 200 the clients received, whole (its Content-Length read to the end), with the SHA-256
/// of each distinct body answered for that key. Kept across rounds: an answer from round 1 must
/// still be whole or absent after round 50's kill.
final class CrashAnswers: Sendable {
    struct Answered: Sendable, Codable {
        var request: CrashRequest
        /// Lower-case hex. One body per key unless making a thumbnail is not deterministic.
        var sha256: Set<String>
    }

    private let state = Mutex<(byDigest: [String: Answered], digests: [String])>(([:], []))

    func record(_ request: CrashRequest, body: [UInt8]) {
        let sum = Hash256.of(body).hex
        state.withLock { s in
            if s.byDigest[request.digest] == nil {
                s.byDigest[request.digest] = Answered(request: request, sha256: [sum])
                s.digests.append(request.digest)
            } else {
                s.byDigest[request.digest]?.sha256.insert(sum)
            }
        }
    }

    /// A key answered before, for a revisit.
    func anyAnswered(using random: inout some RandomNumberGenerator) -> CrashRequest? {
        state.withLock { s in s.digests.randomElement(using: &random).flatMap { s.byDigest[$0]?.request } }
    }

    var all: [Answered] { state.withLock { s in s.digests.compactMap { s.byDigest[$0] } } }
}
