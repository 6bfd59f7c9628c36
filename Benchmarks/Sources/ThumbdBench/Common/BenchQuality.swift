import Foundation
import ImageCodecs
import ImageCore
import ImageOps
import ImageQuality
import InputFiles
import Thumbnailer

/// SSIM of each tool's thumbnail against one careful reference per file: full-size decode, EXIF
/// orientation applied, the centred square cropped and resized to size x size in one Lanczos-3
/// premultiplied pass straight from the full-size pixels (no box pre-reduction, whatever the
/// factor). thumbd is scored on its pre-encode pixels (Thumbnailer.render), the peers on lossless
/// PNG outputs, so no tool's JPEG encoder is scored.
struct BenchQuality: Sendable {
    var files: [BenchFile]
    var size: Int
    var headrooms: [Double]
    /// Peers' PNG output folders (outputs named like `BenchScratch` links, extension .png), by tool.
    var peers: [(tool: String, folder: String?)]
    var workers: Int

    /// Scores of one file: one per headroom, then one per peer (nil: not scored, see the error).
    struct FileScores: Sendable {
        var thumbd: [Double?]
        var peers: [Double?]
        var errors: [BenchResults.FileError]
    }

    static func reference(_ bytes: [UInt8], size: Int) throws(ImageError) -> PixelBuffer {
        let decoded = try ImageCodecs.decode(bytes, scale: .fullSize)
        let upright = decoded.pixels.oriented(decoded.info.orientation)
        let w = Double(upright.width), h = Double(upright.height), side = min(w, h)
        let square = SourceRegion(x: (w - side) / 2, y: (h - side) / 2, width: side, height: side)
        // Pure Lanczos-3 however large the reduction: no box pre-reduction in the reference.
        return Resampler.resize(upright, region: square, width: size, height: size, prereduction: .none)
    }

    static func score(_ candidate: PixelBuffer, against reference: PixelBuffer) -> Double? {
        guard candidate.width == reference.width, candidate.height == reference.height else { return nil }
        return BenchStats.finite(SSIM.compare(candidate, reference))
    }

    func scoreFile(_ index: Int) -> FileScores {
        let file = files[index]
        var scores = FileScores(thumbd: Array(repeating: nil, count: headrooms.count),
                                peers: Array(repeating: nil, count: peers.count), errors: [])
        func fail(_ tool: String, _ code: String, _ message: String) {
            scores.errors.append(.init(tool: tool + " (quality)", file: file.name, code: code, message: message))
        }
        let bytes: [UInt8], reference: PixelBuffer
        do {
            bytes = try InputFile.read(file.path)
            reference = try Self.reference(bytes, size: size)
        } catch let error as ImageError {
            fail("reference", error.code.rawValue, error.message)
            return scores
        } catch {
            fail("reference", "read_failed", "\(error)")
            return scores
        }
        for (h, headroom) in headrooms.enumerated() {
            let request = ThumbnailRequest(size: size, fit: .cover, decodeHeadroom: headroom)
            do {
                let rendered = try Thumbnailer.render(from: bytes, request)
                scores.thumbd[h] = Self.score(rendered.pixels, against: reference)
            } catch {
                fail("thumbd", error.code.rawValue, error.message)
            }
        }
        let outputName = BenchScratch.stem(index) + "-" + (file.name as NSString).deletingPathExtension + ".png"
        for (p, peer) in peers.enumerated() {
            guard let folder = peer.folder else { continue }
            let path = (folder as NSString).appendingPathComponent(outputName)
            guard let output = try? InputFile.read(path) else {
                fail(peer.tool, "peer_failed", "no PNG output")
                continue
            }
            do {
                let decoded = try ImageCodecs.decode(output)
                if let score = Self.score(decoded.pixels, against: reference) {
                    scores.peers[p] = score
                } else if decoded.pixels.width != size || decoded.pixels.height != size {
                    fail(peer.tool, "size_mismatch", "output is \(decoded.pixels.width)x\(decoded.pixels.height), not \(size)x\(size)")
                }
            } catch {
                fail(peer.tool, error.code.rawValue, "cannot decode its PNG output: \(error.message)")
            }
        }
        return scores
    }

    /// Scores every file, `workers` at a time (each holds one full-size decode).
    func run() async -> [FileScores] {
        await withTaskGroup(of: (Int, FileScores).self) { group in
            var results = [FileScores?](repeating: nil, count: files.count)
            var next = 0
            while next < min(workers, files.count) {
                let index = next
                group.addTask { (index, scoreFile(index)) }
                next += 1
            }
            for await (index, scores) in group {
                results[index] = scores
                if next < files.count {
                    let index = next
                    group.addTask { (index, scoreFile(index)) }
                    next += 1
                }
            }
            return results.map { $0! }
        }
    }

    /// Mean, minimum and the per-file table of one column of scores.
    static func summary(_ scores: [Double?], files: [BenchFile]) -> BenchResults.SSIMSummary {
        var summary = BenchResults.SSIMSummary()
        var scored: [(String, Double)] = []
        for (file, score) in zip(files, scores) {
            summary.perFile[file.name] = .some(score)
            if let score { scored.append((file.name, score)) }
        }
        summary.files = scored.count
        if !scored.isEmpty {
            summary.mean = scored.reduce(0) { $0 + $1.1 } / Double(scored.count)
            let worst = scored.min { $0.1 < $1.1 }!
            summary.min = worst.1
            summary.minFile = worst.0
        }
        return summary
    }
}
