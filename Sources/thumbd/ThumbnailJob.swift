import Foundation
import ImageCore
import Thumbnailer

/// One input file to one thumbnail file, with errors that name the file.
struct ThumbnailJob: Sendable {
    var input: String
    var output: String
    var request: ThumbnailRequest

    /// Bigger inputs are refused before reading them whole: no real photo comes near this.
    static let maxInputBytes = 256 << 20

    struct Failure: Error, CustomStringConvertible {
        var input: String
        var code: String
        var message: String
        var description: String { "\(input): \(code): \(message)" }
    }

    func run() -> Result<String, Failure> {
        let bytes: [UInt8]
        do {
            bytes = try Self.read(input)
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(input: input, code: "read_failed", message: error.localizedDescription))
        }
        let thumbnail: Thumbnail
        do {
            thumbnail = try Thumbnailer.make(from: bytes, request)
        } catch {
            return .failure(Failure(input: input, code: error.code.rawValue, message: error.message))
        }
        var destination = output
        if request.encoding == nil, thumbnail.format != .jpeg {
            destination = (output as NSString).deletingPathExtension + "." + thumbnail.format.fileExtension
        }
        do {
            // Atomic: written to a temporary file and renamed, so no reader sees half a thumbnail.
            try Data(thumbnail.bytes).write(to: URL(fileURLWithPath: destination), options: .atomic)
        } catch {
            return .failure(Failure(input: input, code: "write_failed", message: "cannot write \(destination): \(error.localizedDescription)"))
        }
        let ms = Double(thumbnail.timings.total.components.attoseconds) / 1e15 + Double(thumbnail.timings.total.components.seconds) * 1000
        return .success("\(input) -> \(destination) (\(thumbnail.width)x\(thumbnail.height) \(thumbnail.format.rawValue), \(thumbnail.bytes.count) bytes, \(String(format: "%.1f", ms)) ms)")
    }

    static func read(_ path: String) throws -> [UInt8] {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw Failure(input: path, code: "read_failed", message: "no such file or not readable")
        }
        if let type = attributes[.type] as? FileAttributeType, type == .typeDirectory {
            throw Failure(input: path, code: "read_failed", message: "is a directory")
        }
        if let size = attributes[.size] as? Int, size > maxInputBytes {
            throw Failure(input: path, code: "input_too_large", message: "file is \(size >> 20) MiB, over the \(maxInputBytes >> 20) MiB input limit")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Failure(input: path, code: "read_failed", message: "cannot open the file")
        }
        defer { try? handle.close() }
        return [UInt8](handle.readDataToEndOfFile())
    }

    /// Runs jobs `concurrency` at a time; results come back in input order.
    static func runAll(_ jobs: [ThumbnailJob], concurrency: Int) async -> [Result<String, Failure>] {
        await withTaskGroup(of: (Int, Result<String, Failure>).self) { group in
            var results = [Result<String, Failure>?](repeating: nil, count: jobs.count)
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
