import Foundation
import ImageCore
import InputFiles
import ThumbCache
import ThumbPipeline
import ThumbVariant
import Thumbnailer

/// One input file to its thumbnail files, one per size asked, from one decode; errors name the file.
struct ThumbnailJob: Sendable {
    enum Destination: Sendable {
        /// `-o`: the path as given.
        case file(String)
        /// `--out-dir`: the input's base name with the extension of the format the thumbnail got.
        case folder(String, baseName: String)

        /// Where a thumbnail in `format` goes; with several sizes, `sizeLabel` is put before the
        /// extension (`thumb-320.jpg`, `photo-300x400.webp`), so each size has its own file.
        func path(for format: ImageFormat, sizeLabel: String? = nil) -> String {
            let suffix = sizeLabel.map { "-" + $0 } ?? ""
            switch self {
            case .file(let path):
                guard !suffix.isEmpty else { return path }
                let ext = (path as NSString).pathExtension
                let stem = ext.isEmpty ? path : (path as NSString).deletingPathExtension
                return stem + suffix + (ext.isEmpty ? "" : "." + ext)
            case .folder(let folder, let baseName):
                return (folder as NSString).appendingPathComponent(baseName + suffix + "." + format.fileExtension)
            }
        }
    }

    /// One thumbnail to make of the input: its variant and, when several sizes are made, the size
    /// as written on the command line, which names its file.
    struct Output: Sendable {
        var variant: Variant
        var sizeLabel: String?
    }

    var input: String
    var destination: Destination
    var outputs: [Output]
    var maker: ThumbnailMaker
    /// Report the photo's placeholder (a JSON line) instead of the summary lines.
    var placeholder = false

    /// A line (or a failure) for each thumbnail, in the order of `outputs`; a file that cannot be
    /// read or decoded is one failure.
    func run() -> [Result<String, InputFileFailure>] {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(input)
        } catch let failure as InputFileFailure {
            return [.failure(failure)]
        } catch {
            return [.failure(InputFileFailure(input: input, code: "read_failed", message: error.localizedDescription))]
        }
        let photo: DecodedPhoto
        do {
            photo = try Thumbnailer.decode(bytes, for: outputs.map { maker.request(for: $0.variant) }, placeholder: placeholder)
        } catch {
            return [.failure(InputFileFailure(input: input, code: error.code.rawValue, message: error.message))]
        }
        // A size the shared decode cannot serve as its own would (a smart crop of a smaller size at
        // another DCT scale) is decoded alone.
        let results = outputs.map { output in
            let request = maker.request(for: output.variant)
            guard !photo.serves(request) else { return write(output, of: photo) }
            do throws(ImageError) {
                return write(output, of: try Thumbnailer.decode(bytes, for: [request], placeholder: false))
            } catch {
                return .failure(InputFileFailure(input: input, code: error.code.rawValue, message: error.message))
            }
        }
        guard placeholder else { return results }
        // The photo's one placeholder line stands for the summaries; the failures are still reported.
        let failures = results.filter { if case .failure = $0 { true } else { false } }
        return failures.count == results.count ? failures : failures + [.success(placeholderLine(photo))]
    }

    private func placeholderLine(_ photo: DecodedPhoto) -> String {
        let summary = Placeholder(url: input, photo: PhotoSummary(photo.photo, color: photo.colorOutcome))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(summary)) ?? Data(), as: UTF8.self)
    }

    private func write(_ output: Output, of photo: DecodedPhoto) -> Result<String, InputFileFailure> {
        let named = output.sizeLabel.map { "\(input) (size \($0))" } ?? input
        let thumbnail: Thumbnail
        do {
            thumbnail = try maker.make(photo, as: output.variant)
        } catch {
            return .failure(InputFileFailure(input: named, code: error.code.rawValue, message: error.message))
        }
        let destination = destination.path(for: thumbnail.format, sizeLabel: output.sizeLabel)
        do {
            // Atomic: written to a temporary file and renamed, so no reader sees half a thumbnail.
            try Data(thumbnail.bytes).write(to: URL(fileURLWithPath: destination), options: .atomic)
        } catch {
            return .failure(InputFileFailure(input: named, code: "write_failed", message: "cannot write \(destination): \(error.localizedDescription)"))
        }
        let ms = Double(thumbnail.timings.total.components.attoseconds) / 1e15 + Double(thumbnail.timings.total.components.seconds) * 1000
        return .success("\(input) -> \(destination) (\(thumbnail.width)x\(thumbnail.height) \(thumbnail.format.rawValue), \(thumbnail.bytes.count) bytes, \(String(format: "%.1f", ms)) ms)")
    }

    /// Runs jobs `concurrency` at a time; results come back in input order.
    static func runAll(_ jobs: [ThumbnailJob], concurrency: Int) async -> [Result<String, InputFileFailure>] {
        await withTaskGroup(of: (Int, [Result<String, InputFileFailure>]).self) { group in
            var results = [[Result<String, InputFileFailure>]?](repeating: nil, count: jobs.count)
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
            return results.flatMap { $0! }
        }
    }
}
