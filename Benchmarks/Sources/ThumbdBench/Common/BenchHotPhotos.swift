import Foundation
import ImageCodecs
import InputFiles

/// One photo of a benchmark's corpus and, once warmed, its thumbnail: what `serve`, `fleet` and
/// `soak` ask a daemon for.
struct BenchPhoto {
    var name: String
    var megapixels: Double
    var originURL: String
    /// `/v1/thumbnail?url=…&size=N`
    var hotPath: String
    var bytes: [UInt8] = []
    var contentType = ""
    /// The hit's ETag, for conditional requests.
    var etag = ""
    var staticPath = ""

    /// The static file's extension for the thumbnail's type.
    var fileExtension: String {
        if contentType.contains("png") { return "png" }
        if contentType.contains("webp") { return "webp" }
        return "jpg"
    }
}

/// The thumbnails the hit runs ask for: one per photo, at --size, as the daemon made them.
struct BenchHotSet: Encodable {
    var urls: Int
    var bytesMin: Int
    var bytesMean: Int
    var bytesMax: Int
    var contentTypes: [String: Int]
    /// The memory-tier and disk-tier daemons returned the same bytes for every URL (nil: one daemon).
    var sameBytesFromBothDaemons: Bool?
    /// nginx returned exactly the daemon's bytes for every file (nil: nginx not run).
    var nginxBytesIdentical: Bool?

    init(_ photos: [BenchPhoto], sameBytesFromBothDaemons: Bool? = nil, nginxBytesIdentical: Bool? = nil) {
        let sizes = photos.map(\.bytes.count)
        var types: [String: Int] = [:]
        for photo in photos { types[photo.contentType, default: 0] += 1 }
        (urls, bytesMin, bytesMax) = (photos.count, sizes.min() ?? 0, sizes.max() ?? 0)
        bytesMean = sizes.isEmpty ? 0 : sizes.reduce(0, +) / sizes.count
        contentTypes = types
        self.sameBytesFromBothDaemons = sameBytesFromBothDaemons
        self.nginxBytesIdentical = nginxBytesIdentical
    }
}

/// The corpus as hot photos: read, addressed on an origin, and warmed on a daemon.
enum BenchHotPhotos {
    /// The photos of `corpus` (JPEG, PNG, WebP; not recursive), by name, not yet addressed.
    static func corpus(in corpus: String) throws -> [BenchPhoto] {
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus).sorted()
        return names.compactMap { name -> BenchPhoto? in
            let ext = (name as NSString).pathExtension.lowercased()
            guard ["jpg", "jpeg", "png", "webp"].contains(ext) else { return nil }
            let file = (corpus as NSString).appendingPathComponent(name)
            var megapixels = 0.0
            if let bytes = try? InputFile.read(file), let info = try? ImageCodecs.readInfo(bytes) {
                megapixels = Double(info.width) * Double(info.height) / 1e6
            }
            return BenchPhoto(name: name, megapixels: megapixels, originURL: "", hotPath: "")
        }
    }

    /// Each photo's URL on the origin at `originPort`, and its hot thumbnail's path on a daemon.
    static func address(_ photos: inout [BenchPhoto], originPort: Int, size: Int) {
        for index in photos.indices {
            let name = photos[index].name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? photos[index].name
            photos[index].originURL = "http://127.0.0.1:\(originPort)/\(name)"
            photos[index].hotPath = "/v1/thumbnail?url=\(BenchHTTP.queryEscape(photos[index].originURL))&size=\(size)"
        }
    }

    /// Asks `daemon` for every hot URL twice: the first makes it, the second must be a hit from
    /// `expectTier` with the same bytes. Photos the daemon refuses are dropped (and noted).
    @discardableResult
    static func warm(_ daemon: BenchServer, photos: inout [BenchPhoto], expectTier: String,
                     notes: inout [String]) throws -> BenchHotSet {
        var kept: [BenchPhoto] = []
        for var photo in photos {
            let first = try BenchHTTP.get(port: daemon.port, path: photo.hotPath, timeout: 120)
            guard first.status == 200 else {
                notes.append("\(daemon.process.name) refused \(photo.name): status \(first.status) \(first.text.prefix(200)); left out")
                continue
            }
            let second = try BenchHTTP.get(port: daemon.port, path: photo.hotPath)
            let tier = second.headers["x-cache"] ?? "?"
            if second.body != first.body {
                notes.append("\(daemon.process.name): the hit of \(photo.name) differs from the miss")
            }
            if tier != expectTier {
                notes.append("\(daemon.process.name): the second request for \(photo.name) came from '\(tier)', expected '\(expectTier)'")
            }
            photo.bytes = first.body
            photo.contentType = first.headers["content-type"] ?? "?"
            photo.etag = second.headers["etag"] ?? ""
            kept.append(photo)
        }
        photos = kept
        return BenchHotSet(kept)
    }
}

/// How the running benchmark was built: its figures are only worth comparing from a release build.
enum BenchBuild {
    static var kind: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }
}
