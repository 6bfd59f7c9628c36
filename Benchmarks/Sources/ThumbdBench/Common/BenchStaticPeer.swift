import Foundation

/// The static-file peer of the hit benchmarks: the warm thumbnails written as files under
/// `www/t/`, served by an nginx that the caller starts, and checked byte for byte.
enum BenchStaticPeer {
    /// Writes each photo's thumbnail into `www` and sets its `staticPath`.
    static func publish(_ photos: inout [BenchPhoto], www: String) throws {
        try FileManager.default.createDirectory(atPath: (www as NSString).appendingPathComponent("t"), withIntermediateDirectories: true)
        for index in photos.indices {
            photos[index].staticPath = "/t/\(BenchScratch.stem(index)).\(photos[index].fileExtension)"
            try Data(photos[index].bytes).write(to: URL(fileURLWithPath: www + photos[index].staticPath))
        }
    }

    /// Waits for `server`, then whether it answers every photo's static path with exactly its
    /// thumbnail; each difference becomes a note naming `label`.
    static func servesExactly(_ server: BenchServer, _ photos: [BenchPhoto], label: String, notes: inout [String]) throws -> Bool {
        try server.waitUntilReady(path: photos[0].staticPath)
        var identical = true
        for photo in photos {
            let answer = try BenchHTTP.get(port: server.port, path: photo.staticPath)
            if answer.status != 200 || answer.body != photo.bytes {
                identical = false
                notes.append("\(label) answered \(photo.staticPath) with status \(answer.status), \(answer.body.count) bytes; expected \(photo.bytes.count)")
            }
        }
        return identical
    }
}
