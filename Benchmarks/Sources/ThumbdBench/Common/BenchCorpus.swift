import ChildProcess
import Foundation
import ImageCodecs
import ImageCore
import InputFiles

/// One image of the benchmark corpus, as its header describes it.
struct BenchFile: Sendable {
    var path: String
    var name: String
    var format: ImageFormat
    var width: Int
    var height: Int
    var orientation: Orientation
    var byteCount: Int

    var megapixels: Double { Double(width) * Double(height) / 1e6 }
    var isJPEG: Bool { format == .jpeg }
}

/// The files a run measures: every image in the folder whose header reads, sorted by name.
struct BenchCorpus: Sendable {
    var directory: String
    var files: [BenchFile]
    var skipped: [String]
    var errors: [BenchResults.FileError]

    static let imageExtensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "webp", "avif"]

    /// Lists `directory` (not recursively). A file whose content is an image (or whose name says it
    /// should be) but whose header cannot be read is an error of its own and is left out; other
    /// files (MANIFEST.tsv, README) are skipped quietly.
    static func load(_ directory: String) throws -> BenchCorpus {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        var corpus = BenchCorpus(directory: directory, files: [], skipped: [], errors: [])
        for name in names where !name.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let bytes: [UInt8]
            do {
                bytes = try InputFile.read(path)
            } catch let failure as InputFileFailure {
                corpus.errors.append(.init(tool: "corpus", file: name, code: failure.code, message: failure.message))
                continue
            } catch {
                corpus.errors.append(.init(tool: "corpus", file: name, code: "read_failed", message: "\(error)"))
                continue
            }
            let sniffed = SniffedFormat.sniff(bytes)
            let namedAsImage = imageExtensions.contains((name as NSString).pathExtension.lowercased())
            if case .unknown = sniffed, !namedAsImage {
                corpus.skipped.append(name)
                continue
            }
            do {
                let info = try ImageCodecs.readInfo(bytes)
                corpus.files.append(BenchFile(path: path, name: name, format: info.format, width: info.width,
                                              height: info.height, orientation: info.orientation, byteCount: bytes.count))
            } catch {
                corpus.errors.append(.init(tool: "corpus", file: name, code: error.code.rawValue, message: error.message))
            }
        }
        return corpus
    }

    var jpegFiles: [BenchFile] { files.filter(\.isJPEG) }

    static func megapixels(_ files: [BenchFile]) -> Double { files.reduce(0) { $0 + $1.megapixels } }

    /// Leaves out the files that failed a tool's first pass, listing why in `errors`, so every tool
    /// is timed over the same files.
    mutating func drop(_ failures: [(file: BenchFile, error: BenchResults.FileError)]) {
        let failed = Set(failures.map(\.file.path))
        files.removeAll { failed.contains($0.path) }
        errors += failures.map(\.error)
    }
}

/// A scratch folder for peers' inputs and outputs, removed at the end of the run.
///
/// Peers are given symbolic links named `NNN-original.ext`: their outputs (`%s` in vipsthumbnail)
/// then map back to corpus files by the number even if two files share a stem.
final class BenchScratch: Sendable {
    let root: String

    init() throws {
        let template = (NSTemporaryDirectory() as NSString).appendingPathComponent("thumbd-bench-XXXXXX")
        var buffer = Array(template.utf8CString)
        guard let made = mkdtemp(&buffer) else {
            throw ValidationErrorMessage("cannot create a scratch folder under \(NSTemporaryDirectory())")
        }
        root = String(cString: made)
        Termination.removeOnSignal(root)
    }

    func folder(_ name: String) throws -> String {
        let path = (root as NSString).appendingPathComponent(name)
        try? FileManager.default.removeItem(atPath: path)
        // Not intermediate: a stop by signal that removed the root meanwhile must not see it made again.
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    /// Links to `files` in a fresh folder, in the same order; returns the links' paths.
    func links(to files: [BenchFile], in name: String) throws -> [String] {
        let dir = try folder(name)
        return try files.enumerated().map { index, file in
            let link = (dir as NSString).appendingPathComponent(Self.stem(index) + "-" + file.name)
            let target = file.path.hasPrefix("/") ? file.path
                : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(file.path)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            return link
        }
    }

    /// The index a peer's output name starts with, or nil.
    static func index(fromOutputName name: String) -> Int? {
        Int(name.prefix { $0.isNumber })
    }

    static func stem(_ index: Int) -> String {
        let digits = String(index)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    func remove() { Termination.remove(root) }
}
