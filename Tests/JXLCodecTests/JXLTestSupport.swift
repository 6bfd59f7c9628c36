import ChildProcess
import Foundation
import TestSupport
import ImageCore
import ImageQuality
import Testing

/// Where the JPEG XL tests find their files, and the tools they run: libjxl's djxl and cjxl
/// (libjxl-tools) as the reference decoder and the photos' encoder, and python3 with Pillow to read
/// djxl's PNGs. This target depends on nothing but the codec, so it keeps its own small helpers.
enum JXLFiles {
    /// The checkout: the folder above `Tests/` that holds `TestImages/`, found from this file
    /// (symbolic links resolved, so a scratch package that links the folders in finds it too).
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("TestImages").path) { return url }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    }()

    static let folder = root.appendingPathComponent("TestImages/jxl")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// Every committed .jxl, by name.
    static var all: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".jxl") }.sorted()
    }

    /// Third-party photos, never copied into the repo: ../shared/corpora/photos beside the checkout.
    /// Nil when it is not there.
    static let photos: URL? = {
        let url = root.deletingLastPathComponent().appendingPathComponent("shared/corpora/photos")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.contains { $0.lowercased().hasSuffix(".jpg") } ? url : nil
    }()

    static let photosMissing = "no photos in ../shared/corpora/photos: the real-photo JPEG XL tests cannot run"

    /// The first `count` JPEGs of the photo folder, by name.
    static func photoFiles(_ count: Int) -> [URL] {
        guard let photos else { return [] }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: photos.path)) ?? []).filter { $0.lowercased().hasSuffix(".jpg") }.sorted()
        return names.prefix(count).map { photos.appendingPathComponent($0) }
    }

    /// A fresh folder under the temporary directory; the caller removes it.
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-jxl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Programs run by the tests.
enum Tools {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func path(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let available = path("djxl") != nil && path("cjxl") != nil && path("python3") != nil
    static let missing = available ? nil : "djxl, cjxl (libjxl-tools) or python3 is missing: the JPEG XL tests that need them cannot run"

    /// Runs `program` and waits; stdout is returned, stderr kept for the error.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: Data, errors: String) {
        guard let executable = path(program) else { throw Failure("\(program) is not installed") }
        let result = try ChildProcess.run(executable, arguments, timeoutSeconds: 600)
        return (result.status, Data(result.stdout), result.stderrText)
    }

    /// djxl's decode of `data` as 8-bit RGBA (through a PNG read by Pillow), with the ICC profile
    /// djxl says its pixels are in. `colorSpace` is djxl's --color_space (XYB images only).
    static func djxl(_ data: [UInt8], colorSpace: String? = nil) throws -> (pixels: PixelBuffer, icc: [UInt8]) {
        let folder = try JXLFiles.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.jxl"), png = folder.appendingPathComponent("out.png")
        let icc = folder.appendingPathComponent("out.icc")
        try Data(data).write(to: input)
        var arguments = [input.path, png.path, "--bits_per_sample=8", "--num_threads=0", "--quiet", "--icc_out=\(icc.path)"]
        if let colorSpace { arguments.append("--color_space=\(colorSpace)") }
        let result = try run("djxl", arguments)
        guard result.status == 0 else { throw Failure("djxl failed (\(result.status)): \(result.errors)") }
        let profile = (try? Data(contentsOf: icc)).map { [UInt8]($0) } ?? []
        // djxl 0.7 writes a 16-bit source as a 16-bit PNG whatever --bits_per_sample says, and
        // Pillow 10.4 misreads filtered 16-bit grey PNG rows (measured: 1791 for djxl's 2047). So a
        // 16-bit image is taken again as 16-bit PGM/PPM, read and rounded here (no alpha in those
        // formats). Not with --bits_per_sample=8: djxl 0.7 then writes a maxval of 255 over 16-bit
        // samples.
        let header = [UInt8](try Data(contentsOf: png).prefix(26))
        guard header.count == 26 else { throw Failure("djxl wrote no PNG header") }
        let (bitDepth, colourType) = (header[24], header[25])
        guard bitDepth == 16 else { return (try pillowRGBA(png), profile) }
        guard colourType == 0 || colourType == 2 else { throw Failure("no reference reader for 16-bit PNG with alpha") }
        let pnm = folder.appendingPathComponent(colourType == 0 ? "out.pgm" : "out.ppm")
        var pnmArguments = arguments.filter { !$0.hasPrefix("--bits_per_sample") }
        pnmArguments[1] = pnm.path
        let again = try run("djxl", pnmArguments)
        guard again.status == 0 else { throw Failure("djxl failed (\(again.status)): \(again.errors)") }
        return (try readPNM([UInt8](try Data(contentsOf: pnm))), profile)
    }

    /// A binary PGM (P5) or PPM (P6), 8 or 16 bits, as 8-bit RGBA (16-bit samples rounded).
    static func readPNM(_ bytes: [UInt8]) throws -> PixelBuffer {
        var fields: [Int] = []
        var magic = ""
        var at = 0
        // Four whitespace-separated tokens: magic, width, height, maximum; then one whitespace byte.
        while fields.count < 3 || magic.isEmpty {
            while at < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[at]) { at += 1 }
            let start = at
            while at < bytes.count, ![0x20, 0x0A, 0x0D, 0x09].contains(bytes[at]) { at += 1 }
            let token = String(decoding: bytes[start..<at], as: UTF8.self)
            if magic.isEmpty { magic = token } else if let value = Int(token) { fields.append(value) } else { throw Failure("bad PNM token \(token)") }
        }
        at += 1
        let channels = magic == "P5" ? 1 : magic == "P6" ? 3 : 0
        let (width, height, maximum) = (fields[0], fields[1], fields[2])
        let sampleBytes = maximum > 255 ? 2 : 1
        guard channels > 0, width > 0, height > 0, bytes.count - at >= width * height * channels * sampleBytes else { throw Failure("bad PNM") }
        var image = PixelBuffer(width: width, height: height)
        for i in 0..<width * height {
            for c in 0..<3 {
                let sample = (i * channels + (channels == 1 ? 0 : c)) * sampleBytes + at
                let value = sampleBytes == 2 ? Int(bytes[sample]) << 8 | Int(bytes[sample + 1]) : Int(bytes[sample])
                image.pixels[i * 4 + c] = UInt8((value * 255 + maximum / 2) / maximum)
            }
        }
        return image
    }

    /// Pillow's reading of an image file as 8-bit RGBA.
    static func pillowRGBA(_ file: URL) throws -> PixelBuffer {
        let script = """
            import sys
            from PIL import Image
            image = Image.open(sys.argv[1])
            alpha = image.mode in ("RGBA", "LA") or "transparency" in image.info
            rgba = image.convert("RGBA")
            sys.stdout.buffer.write(f"{rgba.width} {rgba.height} {int(alpha)}\\n".encode() + rgba.tobytes())
            """
        let result = try run("python3", ["-c", script, file.path])
        guard result.status == 0, let newline = result.output.firstIndex(of: 0x0A) else {
            throw Failure("Pillow could not read \(file.lastPathComponent): \(result.errors)")
        }
        let fields = String(decoding: result.output[..<newline], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        let pixels = [UInt8](result.output[(newline + 1)...])
        guard fields.count == 3, fields[0] > 0, fields[1] > 0, pixels.count == fields[0] * fields[1] * 4 else {
            throw Failure("Pillow's answer for \(file.lastPathComponent) is malformed")
        }
        return PixelBuffer(width: fields[0], height: fields[1], hasAlpha: fields[2] == 1, pixels: pixels)
    }

    /// Runs cjxl on `file` with `arguments`, returning the .jxl bytes.
    static func cjxl(_ file: URL, _ arguments: [String]) throws -> [UInt8] {
        let folder = try JXLFiles.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.jxl")
        let result = try run("cjxl", [file.path, output.path, "--quiet", "--num_threads=0"] + arguments)
        guard result.status == 0 else { throw Failure("cjxl failed (\(result.status)): \(result.errors)") }
        return [UInt8](try Data(contentsOf: output))
    }

    /// A PixelBuffer written as PNG by Pillow (for cjxl, and to read thumbd's pixels elsewhere).
    static func png(_ image: PixelBuffer, to file: URL) throws {
        let raw = file.deletingPathExtension().appendingPathExtension("rgba")
        try Data(image.pixels).write(to: raw)
        defer { try? FileManager.default.removeItem(at: raw) }
        let script = """
            import sys
            from PIL import Image
            width, height, alpha = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
            image = Image.frombytes("RGBA", (width, height), open(sys.argv[1], "rb").read())
            (image if alpha else image.convert("RGB")).save(sys.argv[5])
            """
        let result = try run("python3", ["-c", script, raw.path, "\(image.width)", "\(image.height)", image.hasAlpha ? "1" : "0", file.path])
        guard result.status == 0 else { throw Failure("Pillow could not write \(file.lastPathComponent): \(result.errors)") }
    }

    /// A JPEG photo as a thumbnail of exactly `width` x `height` (Pillow: upright, scaled to cover
    /// and centre-cropped, Lanczos), for the encoder tests.
    static func photoThumbnail(_ photo: URL, width: Int, height: Int) throws -> PixelBuffer {
        let folder = try JXLFiles.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("thumb.png")
        let script = """
            import sys
            from PIL import Image, ImageOps
            image = ImageOps.exif_transpose(Image.open(sys.argv[1])).convert("RGB")
            ImageOps.fit(image, (int(sys.argv[2]), int(sys.argv[3])), Image.LANCZOS).save(sys.argv[4])
            """
        let result = try run("python3", ["-c", script, photo.path, "\(width)", "\(height)", png.path])
        guard result.status == 0 else { throw Failure("Pillow could not shrink \(photo.lastPathComponent): \(result.errors)") }
        return try pillowRGBA(png)
    }
}

extension Tools {
    /// `image` through Pillow's JPEG encoder at `quality` (4:2:0, its defaults) and back: the
    /// pixels and the JPEG's size.
    static func pillowJPEG(_ image: PixelBuffer, quality: Int) throws -> (pixels: PixelBuffer, bytes: Int) {
        let folder = try JXLFiles.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("in.png"), jpeg = folder.appendingPathComponent("out.jpg")
        try Tools.png(image, to: png)
        let result = try run("python3", ["-c", "import sys; from PIL import Image; Image.open(sys.argv[1]).convert('RGB').save(sys.argv[2], quality=int(sys.argv[3]))",
                                         png.path, jpeg.path, "\(quality)"])
        guard result.status == 0 else { throw Failure("Pillow could not write a JPEG: \(result.errors)") }
        return (try pillowRGBA(jpeg), try Data(contentsOf: jpeg).count)
    }
}

/// Pixel comparisons.
enum Compare {
    /// The largest difference of any R, G, B or A sample.
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        precondition(a.pixels.count == b.pixels.count)
        var worst = 0
        for i in 0..<a.pixels.count { worst = max(worst, abs(Int(a.pixels[i]) - Int(b.pixels[i]))) }
        return worst
    }

    /// The worst of the R, G and B planes' SSIM (composited over white): a swapped channel shows.
    static func minimumSSIM(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let rgb = SSIM.compareRGB(a, b)
        return min(rgb.r, rgb.g, rgb.b)
    }
}

