import Foundation

/// The photos `thumbd-bench misses` asks thumbnails of, a set at a time.
struct BenchMissesSet {
    var name: String
    var description: String
    var files: [String]
}

enum BenchMissesSets {
    /// The generated scenes, then the corpus's JPEGs (when asked and there are any).
    static func make(corpus: String?, photos: Bool, repetitions: Int, seed: UInt64, scratch: BenchScratch) throws -> [BenchMissesSet] {
        let corpusFiles = try corpus.map { try BenchCorpus.load($0).files } ?? []
        let scenes = try BenchCropScenes.make(repetitions: repetitions, seed: seed, corpus: corpusFiles, into: try scratch.folder("scenes"))
        var sets = [BenchMissesSet(name: "scenes",
                                   description: "\(scenes.paths.count) generated product scenes (1200 px, JPEG q92, backgrounds from \(scenes.backgroundSource))",
                                   files: scenes.paths)]
        let jpegs = corpusFiles.filter(\.isJPEG)
        if photos, !jpegs.isEmpty {
            let megapixels = jpegs.map(\.megapixels)
            let range = String(format: "%.1f-%.1f MP", megapixels.min() ?? 0, megapixels.max() ?? 0)
            sets.append(BenchMissesSet(name: "photos", description: "the \(jpegs.count) JPEGs of \(corpus ?? "") (\(range))",
                                       files: jpegs.map { URL(fileURLWithPath: $0.path).standardizedFileURL.path }))
        }
        return sets
    }
}
