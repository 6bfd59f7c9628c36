import ChildProcess
import CropScenes
import Foundation
import ImageCore
import Testing

// What the codec suites share: Pillow as the independent decoder, the photo corpus, a seeded
// generator's small helpers, and a first-difference report for messages.

/// Where a codec suite finds its committed files (`TestImages/<format>`) and the photo corpus.
public struct CodecTestFiles: Sendable {
    public let folder: URL
    public let fileExtension: String

    public init(_ format: String, fileExtension: String? = nil) {
        folder = TestPaths.testImages.appendingPathComponent(format)
        self.fileExtension = fileExtension ?? format
    }

    public func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    public func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url(name))) }

    /// Every committed file of the format, sorted.
    public var all: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix("." + fileExtension) }.sorted()
    }

    /// `../shared/corpora/photos` beside the checkout (or `$THUMBD_CORPORA/photos`); nil when absent.
    public static let photos: URL? = TestPaths.corpus("photos").flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }

    public static let photosMissing = "../shared/corpora/photos is absent (set THUMBD_CORPORA): the real-photo tests are skipped"

    /// Three photos of the corpus for the real-photo tests: small ones (1.5 to 2.3 megapixels) when
    /// present, else the first three JPEGs.
    public static func threePhotos() throws -> [URL] {
        guard let folder = photos else { return [] }
        let preferred = ["lomiri_Picture_1A_by_freespace.jpg", "mate_FreshFlower.jpg", "mate_Blinds.jpg"]
            .map { folder.appendingPathComponent($0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        if preferred.count == 3 { return preferred }
        let all = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension.lowercased() == "jpg" }.sorted { $0.path < $1.path }
        return Array(all.prefix(3))
    }
}

extension SceneRandom {
    /// 0 ..< bound.
    public mutating func below(_ bound: Int) -> Int { index(bound) }
}

/// Pillow (through `python3`), the independent decoder the tests compare with.
public enum Pillow {
    public struct Failure: Error, CustomStringConvertible, Sendable { public let description: String }

    public static let available: Bool = (try? run(["-c", "import PIL"])) != nil
    public static let missing = "needs python3 with Pillow (pip install pillow)"

    /// Decodes every file given (each in one python process): `convert('RGBA')` of the first frame.
    /// Files Pillow refuses map to its error message.
    public static func decode(_ files: [URL]) throws -> [URL: Result<PixelBuffer, Failure>] {
        let folder = try temporaryFolder("pillow-decode")
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = """
        import sys
        from PIL import Image
        for i, path in enumerate(sys.argv[2:]):
            try:
                im = Image.open(path)
                im.seek(0)
                rgba = im.convert("RGBA")
                open(f"{sys.argv[1]}/{i}.rgba", "wb").write(rgba.tobytes())
                print(i, "ok", rgba.width, rgba.height)
            except Exception as e:
                print(i, "error", type(e).__name__, str(e).replace("\\n", " "))
        """
        let output = try run(["-c", script, folder.path] + files.map(\.path))
        var results: [URL: Result<PixelBuffer, Failure>] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard fields.count == 3, let i = Int(fields[0]), files.indices.contains(i) else { continue }
            if fields[1] == "ok" {
                let size = fields[2].split(separator: " ").compactMap { Int($0) }
                let rgba = [UInt8](try Data(contentsOf: folder.appendingPathComponent("\(i).rgba")))
                try #require(size.count == 2 && rgba.count == size[0] * size[1] * 4, "Pillow said: \(line)")
                let hasAlpha = stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] != 255 }
                results[files[i]] = .success(PixelBuffer(width: size[0], height: size[1], hasAlpha: hasAlpha, pixels: rgba))
            } else {
                results[files[i]] = .failure(Failure(description: fields[2]))
            }
        }
        return results
    }

    public static func temporaryFolder(_ prefix: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs another reference tool (djxl, cjxl), failing with its output when it fails.
    public static func runTool(_ executable: String, _ arguments: [String]) throws {
        let result = try ChildProcess.run(executable, arguments, timeoutSeconds: 120)
        guard result.status == 0 else {
            throw Failure(description: "\(executable) exited \(result.status): \(result.stderrText)")
        }
    }

    @discardableResult
    public static func run(_ arguments: [String]) throws -> String {
        let result = try ChildProcess.run("/usr/bin/env", ["python3"] + arguments, timeoutSeconds: 600)
        guard result.status == 0 else {
            throw Failure(description: "python3 exited \(result.status): \(result.stderrText)")
        }
        return result.stdoutText
    }
}

/// The error a throwing call raised, or nil when it returned.
public func refusal<T>(_ body: () throws(ImageError) -> T) -> ImageError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// The first pixels where two RGBA images differ ("" when they are identical), for messages.
public func differences(_ ours: PixelBuffer, _ expected: PixelBuffer, limit: Int = 4) -> String {
    guard ours.width == expected.width, ours.height == expected.height else {
        return "size \(ours.width)x\(ours.height), expected \(expected.width)x\(expected.height)"
    }
    var found: [String] = []
    var count = 0
    for y in 0..<ours.height {
        for x in 0..<ours.width where ours.pixel(x: x, y: y) != expected.pixel(x: x, y: y) {
            count += 1
            if found.count < limit { found.append("(\(x), \(y)): \(ours.pixel(x: x, y: y)) expected \(expected.pixel(x: x, y: y))") }
        }
    }
    return count == 0 ? "" : "\(count) pixels differ, first \(found.joined(separator: "; "))"
}

