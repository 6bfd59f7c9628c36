import Foundation

/// What the nodes' disk tiers hold, read from each node's GET /v1/cache/entries: every entry (a
/// URL and a variant; originals included) and the photos it belongs to.
struct BenchFleetListing {
    /// "variant url" of each entry, by node (empty for a node that is down).
    var entriesByNode: [Set<String>]
    /// Indexes of the photos with at least one entry, by node.
    var photosByNode: [Set<Int>]

    /// `ports[i]` nil: node i is down and holds nothing anyone can reach.
    static func read(ports: [Int?], photoURLs: [String]) throws -> BenchFleetListing {
        var photoIndex: [String: Int] = [:]
        for (index, url) in photoURLs.enumerated() { photoIndex[comparable(url)] = index }
        var listing = BenchFleetListing(entriesByNode: [], photosByNode: [])
        for port in ports {
            var entries = Set<String>(), photos = Set<Int>()
            if let port {
                for (url, variant) in try entryKeys(port: port) {
                    entries.insert(variant + " " + url)
                    if let photo = photoIndex[comparable(url)] { photos.insert(photo) }
                }
            }
            listing.entriesByNode.append(entries)
            listing.photosByNode.append(photos)
        }
        return listing
    }

    /// A node writes URLs in its normalized spelling; compared without percent-encoding.
    private static func comparable(_ url: String) -> String { url.removingPercentEncoding ?? url }

    /// Every entry of one node, page by page.
    private static func entryKeys(port: Int) throws -> [(url: String, variant: String)] {
        var keys: [(String, String)] = []
        let page = 1000
        while true {
            let answer = try BenchHTTP.get(port: port, path: "/v1/cache/entries?limit=\(page)&offset=\(keys.count)", timeout: 30)
            guard answer.status == 200, let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
                  let entries = object["entries"] as? [[String: Any]] else {
                throw ValidationErrorMessage("node on port \(port) listed its entries with status \(answer.status): \(answer.text.prefix(300))")
            }
            keys += entries.compactMap { entry in
                guard let url = entry["url"] as? String, let variant = entry["variant"] as? String else { return nil }
                return (url, variant)
            }
            if entries.count < page { return keys }
        }
    }
}

/// The fleet's holdings at one moment: how often entries are held more than once, and the
/// origin's requests so far.
struct BenchFleetHoldings: Encodable {
    var entriesPerNode: [Int]
    var entries: Int
    var distinctEntries: Int
    /// entries / distinct entries: 1.0 when no entry is held by two nodes.
    var duplicationFactor: Double?
    var photosPerNode: [Int]
    /// Photos with entries on more than one node (copies).
    var photosOnSeveralNodes: Int
    var originRequests: BenchFleetOriginRequests

    init(_ listing: BenchFleetListing, origin: BenchFleetOriginRequests) {
        entriesPerNode = listing.entriesByNode.map(\.count)
        entries = entriesPerNode.reduce(0, +)
        distinctEntries = listing.entriesByNode.reduce(into: Set<String>()) { $0.formUnion($1) }.count
        duplicationFactor = distinctEntries > 0 ? Double(entries) / Double(distinctEntries) : nil
        photosPerNode = listing.photosByNode.map(\.count)
        var holders: [Int: Int] = [:]
        for photos in listing.photosByNode { for photo in photos { holders[photo, default: 0] += 1 } }
        photosOnSeveralNodes = holders.values.filter { $0 > 1 }.count
        originRequests = origin
    }
}

/// GETs of each photo in the origin's log: python's http.server writes a line per request,
/// `127.0.0.1 - - [date] "GET /name.jpg HTTP/1.1" 200 -`.
struct BenchFleetOriginRequests: Encodable {
    var total: Int
    var photos: Int
    var photosAskedOnce: Int
    var photosNeverAsked: Int
    var mostForOnePhoto: Int
    /// Photos asked for more than once, by name.
    var repeated: [String: Int]
    /// GETs of each photo, in the order given.
    var perPhoto: [Int]

    /// `photoPaths`: each photo's path on the origin, as its URL spells it.
    static func read(logFile: String, photoPaths: [String], names: [String]) -> BenchFleetOriginRequests {
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            guard let start = line.range(of: "\"GET "), let end = line.range(of: " HTTP/", range: start.upperBound..<line.endIndex) else { continue }
            let path = String(line[start.upperBound..<end.lowerBound])
            counts[path.removingPercentEncoding ?? path, default: 0] += 1
        }
        let perPhoto = photoPaths.map { counts[$0.removingPercentEncoding ?? $0] ?? 0 }
        var repeated: [String: Int] = [:]
        for (index, count) in perPhoto.enumerated() where count > 1 { repeated[names[index]] = count }
        return BenchFleetOriginRequests(total: perPhoto.reduce(0, +), photos: perPhoto.count,
                                        photosAskedOnce: perPhoto.filter { $0 == 1 }.count,
                                        photosNeverAsked: perPhoto.filter { $0 == 0 }.count,
                                        mostForOnePhoto: perPhoto.max() ?? 0, repeated: repeated, perPhoto: perPhoto)
    }
}
