import ChildProcess
import Foundation
import TestSupport
import ImageCore
import Testing

/// Where the TIFF tests find their files and their reference decoder (Pillow, through
/// Scripts/tiff_testimages.py), and the small comparisons they share.
enum TIFFTestFiles {
    /// The checkout: the first folder above this file that holds `TestImages` (links resolved, so a
    /// package that links this folder in from elsewhere finds the checkout's files too).
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("TestImages").path) { return url }
            url.deleteLastPathComponent()
        }
        fatalError("no TestImages folder above \(#filePath)")
    }()

    static let folder = root.appendingPathComponent("TestImages/tiff")
    static let script = root.appendingPathComponent("Scripts/tiff_testimages.py").path

    static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url(name))) }

    /// The photos of the shared corpus, or nil when the folder is absent.
    static let photos: URL? = {
        let candidate = ProcessInfo.processInfo.environment["THUMBD_CORPORA"].map { URL(fileURLWithPath: $0) }
            ?? root.deletingLastPathComponent().appendingPathComponent("shared/corpora")
        let folder = candidate.appendingPathComponent("photos")
        return FileManager.default.fileExists(atPath: folder.path) ? folder : nil
    }()

    /// A CMYK ICC profile from the system (Ghostscript's), for the colour-path tests; nil when absent.
    static let systemCMYKProfile: String? = ["/usr/share/color/icc/ghostscript/default_cmyk.icc", "/usr/share/color/icc/ghostscript/ps_cmyk.icc"]
        .first { FileManager.default.fileExists(atPath: $0) }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tiff-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Pillow's decode of a file, as Scripts/tiff_testimages.py writes it.
struct PillowDecode {
    let width: Int
    let height: Int
    /// "rgba" (4 bytes a pixel, not premultiplied) or "cmyk" (C, M, Y, K).
    let kind: String
    /// Pillow's mode when it opened the file ("RGB", "I;16", "P", ...).
    let mode: String
    let bytes: [UInt8]

    var pixels: PixelBuffer { PixelBuffer(width: width, height: height, hasAlpha: true, pixels: bytes) }

    static let available: Bool = (try? Python.run(["-c", "import PIL"]).status) == 0

    /// `reference` (the first page as stored) or `reference-srgb` (converted with its profile).
    static func decode(_ file: URL, command: String = "reference") throws -> PillowDecode {
        let folder = try TIFFTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("decoded.raw")
        let result = try Python.run([TIFFTestFiles.script, command, file.path, out.path])
        guard result.status == 0 else { throw PythonFailure(text: "Pillow could not decode \(file.lastPathComponent): \(result.stderr)") }
        let fields = result.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        guard fields.count == 4, let width = Int(fields[0]), let height = Int(fields[1]) else {
            throw PythonFailure(text: "unexpected reference header \(result.stdout)")
        }
        return PillowDecode(width: width, height: height, kind: fields[2], mode: fields[3], bytes: [UInt8](try Data(contentsOf: out)))
    }
}

struct PythonFailure: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}

enum Python {
    /// Runs python3 with `arguments`, collecting its stdout and stderr.
    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try ChildProcess.run("/usr/bin/env", ["python3"] + arguments, timeoutSeconds: 600)
        return (result.status, result.stdoutText, result.stderrText)
    }
}

/// Pixel comparisons.
enum Compare {
    /// The largest difference of any byte of the chosen channels (0...3), and where.
    static func maxDifference(_ a: [UInt8], _ b: [UInt8], channels: [Int] = [0, 1, 2, 3]) -> (difference: Int, at: Int) {
        precondition(a.count == b.count, "sizes differ: \(a.count) and \(b.count)")
        var worst = (difference: 0, at: -1)
        for pixel in stride(from: 0, to: a.count, by: 4) {
            for c in channels {
                let d = abs(Int(a[pixel + c]) - Int(b[pixel + c]))
                if d > worst.difference { worst = (d, pixel / 4) }
            }
        }
        return worst
    }

    /// The pixels turned upright by `orientation`, as EXIF defines it (the transform that stands
    /// the stored image up), written out independently of ImageOps.
    static func upright(_ image: PixelBuffer, _ orientation: Orientation) -> PixelBuffer {
        let (w, h) = (image.width, image.height)
        let (outW, outH) = orientation.swapsDimensions ? (h, w) : (w, h)
        var out = [UInt8](repeating: 0, count: image.pixels.count)
        for y in 0..<outH {
            for x in 0..<outW {
                // The stored pixel that lands at (x, y) of the upright image.
                let (sx, sy): (Int, Int) = switch orientation {
                case .up: (x, y)
                case .upMirrored: (w - 1 - x, y)
                case .down: (w - 1 - x, h - 1 - y)
                case .downMirrored: (x, h - 1 - y)
                case .leftMirrored: (y, x)
                case .right: (y, h - 1 - x)
                case .rightMirrored: (w - 1 - y, h - 1 - x)
                case .left: (w - 1 - y, x)
                }
                let from = (sy * w + sx) * 4, to = (y * outW + x) * 4
                out[to..<to + 4] = image.pixels[from..<from + 4]
            }
        }
        return PixelBuffer(width: outW, height: outH, hasAlpha: image.hasAlpha, pixels: out)
    }
}

