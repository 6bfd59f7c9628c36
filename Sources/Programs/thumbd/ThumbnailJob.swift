import Foundation
import ImageCore
import InputFiles
import ThumbCache
import ThumbPipeline
import ThumbVariant
import Thumbnailer

/// One input file to one thumbnail file, with errors that name the file.
struct ThumbnailJob: Sendable {
    enum Destination: Sendable {
        /// `-o`: the path as given.
        case file(String)
        /// `--out-dir`: the input's base name with the extension of the format the thumbnail got.
        case folder(String, baseName: String)

        func path(for format: ImageFormat) -> String {
            switch self {
            case .file(let path): path
            case .folder(let folder, let baseName): (folder as NSString).appendingPathComponent(baseName + "." + format.fileExtension)
            }
        }
    }

    var input: String
    var destination: Destination
    var variant: Variant
    var maker: ThumbnailMaker
    /// Report the photo's placeholder (a JSON line) instead of the summary line.
    var placeholder = false

    func run() -> Result<String, InputFileFailure> {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(input)
        } catch let failure as InputFileFailure {
            return .failure(failure)
        } catch {
            return .failure(InputFileFailure(input: input, code: "read_failed", message: error.localizedDescription))
        }
        let thumbnail: Thumbnail
        do {
            thumbnail = try maker.make(bytes, as: variant)
        } catch {
            return .failure(InputFileFailure(input: input, code: error.code.rawValue, message: error.message))
        }
        let destination = destination.path(for: thumbnail.format)
        do {
            // Atomic: written to a temporary file and renamed, so no reader sees half a thumbnail.
            try Data(thumbnail.bytes).write(to: URL(fileURLWithPath: destination), options: .atomic)
        } catch {
            return .failure(InputFileFailure(input: input, code: "write_failed", message: "cannot write \(destination): \(error.localizedDescription)"))
        }
        if placeholder {
            let summary = Placeholder(url: input, photo: PhotoSummary(thumbnail.photo, color: thumbnail.color))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return .success(String(decoding: (try? encoder.encode(summary)) ?? Data(), as: UTF8.self))
        }
        let ms = Double(thumbnail.timings.total.components.attoseconds) / 1e15 + Double(thumbnail.timings.total.components.seconds) * 1000
        return .success("\(input) -> \(destination) (\(thumbnail.width)x\(thumbnail.height) \(thumbnail.format.rawValue), \(thumbnail.bytes.count) bytes, \(String(format: "%.1f", ms)) ms)")
    }

    /// Runs jobs `concurrency` at a time; results come back in input order.
    static func runAll(_ jobs: [ThumbnailJob], concurrency: Int) async -> [Result<String, InputFileFailure>] {
        await withTaskGroup(of: (Int, Result<String, InputFileFailure>).self) { group in
            var results = [Result<String, InputFileFailure>?](repeating: nil, count: jobs.count)
            var next = 0
            for _ in 0..<min(concurrency, jobs.count) {
                let index = next, job = jobs[index]
                group.addTask { (index, job.run()) }
                next += 1
            }
            for await (index, result) in group {
                results[index] = result
                if next < jobs.count {
                    let i = next, job = jobs[i]
                    group.addTask { (i, job.run()) }
                    next += 1
                }
            }
            return results.map { $0! }
        }
    }
}
