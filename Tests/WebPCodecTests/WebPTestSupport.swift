import Foundation
import ImageCore
import TestSupport
import Testing
@testable import WebPCodec

/// Files and facts shared by the WebP tests.
enum WebPFiles {
    /// TestImages/webp, shipped with the repo.
    static let testImages = TestPaths.testImages.appendingPathComponent("webp")

    static func testImage(_ name: String) throws -> [UInt8] {
        try TestPaths.bytes(testImages.appendingPathComponent(name))
    }

    /// A file of ../shared/corpora/webp (callers are gated on `TestPaths.corpora`).
    static func corpus(_ relative: String) throws -> [UInt8] {
        let url = try #require(TestPaths.corpus("webp/\(relative)"), Comment(rawValue: TestPaths.corporaMissing))
        return try TestPaths.bytes(url)
    }

    /// MANIFEST rows of the webp corpus with the given `expected` value; empty without the corpus.
    static func manifestFiles(expected: String) -> [String] {
        ((try? TestPaths.manifest("webp")) ?? []).filter { $0["expected"] == expected }.compactMap { $0["file"] }
    }

    static func manifestRow(_ file: String) throws -> [String: String] {
        try #require(try TestPaths.manifest("webp").first { $0["file"] == file })
    }

    /// Every file under ../shared/corpora/broken that starts like a WebP (RIFF....WEBP) or is named .webp.
    static func brokenWebPs() -> [String] {
        guard let broken = TestPaths.corpus("broken"),
              let walker = FileManager.default.enumerator(at: broken, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey]) else { return [] }
        var found: [String] = []
        for case let url as URL in walker {
            guard let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey]),
                  values.isRegularFile == true, (values.fileSize ?? 0) > 0 else { continue }
            // Only the first bytes are needed to sniff.
            guard let handle = try? FileHandle(forReadingFrom: url) else { continue }
            let head = (try? handle.read(upToCount: 16)).map { [UInt8]($0) } ?? []
            try? handle.close()
            if SniffedFormat.sniff(head) == .supported(.webp) || url.pathExtension.lowercased() == "webp" {
                found.append(String(url.path.dropFirst(broken.path.count + 1)))
            }
        }
        return found.sorted()
    }
}

/// A row of TestImages/webp-reference.tsv (written by Scripts/webp_reference.py from Pillow).
struct WebPReference: Sendable, CustomTestStringConvertible {
    let root: String
    let file: String
    let kind: String
    let width: Int
    let height: Int
    let sha256: String
    /// Pillow opened the file as RGB (no alpha flag in the header), so its pixels have alpha 255.
    let pillowDroppedAlpha: Bool

    var testDescription: String { "\(root):\(file)" }

    static let all: [WebPReference] = {
        let url = TestPaths.testImages.appendingPathComponent("webp-reference.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 7, let w = Int(f[3]), let h = Int(f[4]) else { return nil }
            return WebPReference(root: f[0], file: f[1], kind: f[2], width: w, height: h, sha256: f[5],
                                 pillowDroppedAlpha: f[6] == "dropped")
        }
    }()

    /// Rows whose files are on this machine (corpus rows drop out without the corpus).
    static func available(kind: String) -> [WebPReference] {
        all.filter { $0.kind == kind && ($0.root == "testimages" || TestPaths.corpora != nil) }
    }

    func bytes() throws -> [UInt8] {
        root == "testimages" ? try WebPFiles.testImage(file) : try WebPFiles.corpus(file)
    }

    /// Our pixels as Pillow would present them: alpha forced to 255 where Pillow dropped it.
    func comparable(_ image: PixelBuffer) -> [UInt8] {
        guard pillowDroppedAlpha else { return image.pixels }
        var pixels = image.pixels
        for i in stride(from: 3, to: pixels.count, by: 4) { pixels[i] = 255 }
        return pixels
    }

    /// Pillow's pixels, stored losslessly, when the script kept them for a tolerance comparison.
    var pixelReferenceURL: URL {
        WebPFiles.testImages.appendingPathComponent("reference")
            .appendingPathComponent("\(root)__\(file.replacingOccurrences(of: ".webp", with: "").replacingOccurrences(of: "/", with: "__")).webp")
    }
}

enum Pixels {
    static func allOpaque(_ pixels: [UInt8]) -> Bool {
        pixels.withUnsafeBufferPointer { buffer in
            var index = 3
            while index < buffer.count {
                if buffer[index] != 255 { return false }
                index += 4
            }
            return true
        }
    }

    /// Mean absolute difference over every RGBA byte.
    static func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var total = 0
        for i in a.indices { total += abs(Int(a[i]) - Int(b[i])) }
        return Double(total) / Double(a.count)
    }

    /// Mean absolute difference over the colour channels of pixels that are visible in both.
    static func meanVisibleColourDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var total = 0, samples = 0
        for p in stride(from: 0, to: a.count, by: 4) where a[p + 3] > 0 && b[p + 3] > 0 {
            for c in 0..<3 { total += abs(Int(a[p + c]) - Int(b[p + c])) }
            samples += 3
        }
        return samples == 0 ? 0 : Double(total) / Double(samples)
    }

    /// A deterministic test pattern: smooth colour gradients under a luma-only checkerboard (hard
    /// edges in brightness, none in colour, so chroma subsampling does not dominate lossy error), and
    /// optionally an alpha ramp with fully transparent pixels whose RGB is not zero.
    static func pattern(width: Int, height: Int, alpha: Bool) -> PixelBuffer {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let luma = (x / 16 + y / 16) % 2 == 0 ? -30 : 30
                pixels[i] = UInt8(40 + x * 170 / max(1, width - 1) + luma)
                pixels[i + 1] = UInt8(40 + y * 170 / max(1, height - 1) + luma)
                pixels[i + 2] = UInt8(40 + (x + y) * 170 / max(1, width + height - 2) + luma)
                pixels[i + 3] = alpha ? UInt8(x < 10 ? 0 : min(255, (x * 3 + y) % 256)) : 255
            }
        }
        return PixelBuffer(width: width, height: height, hasAlpha: alpha, pixels: pixels)
    }
}

/// The chunks of a RIFF WebP, read independently of the codec.
enum RIFFChunks {
    static func fourCCs(_ data: [UInt8]) -> [String] {
        guard data.count >= 12 else { return [] }
        var offset = 12, result: [String] = []
        while offset + 8 <= data.count {
            result.append(String(decoding: data[offset..<offset + 4], as: UTF8.self))
            let size = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
            offset += 8 + size + (size & 1)
        }
        return result
    }

    static func le32(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }
}

extension ImageError.Code {
    var isDataRefusal: Bool { self == .truncatedImage || self == .corruptImage }
}
