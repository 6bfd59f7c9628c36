import CAVIF
import ChildProcess
import Foundation
import ImageCore
import Testing

/// Synthetic photographs: smooth gradients, a few soft-edged shapes, fine texture and noise, so an
/// encoder has both flat areas and detail. Deterministic for a seed.
enum Photo {
    static func make(width: Int, height: Int, seed: UInt64 = 1, alpha: Bool = false) -> PixelBuffer {
        var rng = SplitMix64(seed: seed)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        let w = Double(width), h = Double(height)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x) / w, fy = Double(y) / h
                var r = 0.50 + 0.35 * sin(6.0 * fx + 2.0 * fy)
                var g = 0.25 + 0.55 * fy
                var b = 0.50 + 0.40 * cos(5.0 * fx * fy + 1.0)
                // A soft disc and a hard-edged dark bar.
                let d = ((fx - 0.62) * (fx - 0.62) + (fy - 0.40) * (fy - 0.40)).squareRoot()
                let disc = max(0, min(1, (0.22 - d) * 30))
                r = r * (1 - disc) + 0.95 * disc
                g = g * (1 - disc) + 0.80 * disc
                b = b * (1 - disc) + 0.20 * disc
                if fx > 0.15 && fx < 0.30 && fy > 0.55 && fy < 0.90 { r *= 0.3; g *= 0.3; b *= 0.35 }
                // Fine texture.
                let texture = 0.04 * sin(Double(x) * 0.9) * sin(Double(y) * 1.3)
                func byte(_ v: Double) -> UInt8 {
                    let noise = Double(Int(rng.next() % 13) - 6)
                    return UInt8(max(0, min(255, ((v + texture) * 255 + noise).rounded())))
                }
                let i = (y * width + x) * 4
                pixels[i] = byte(r)
                pixels[i + 1] = byte(g)
                pixels[i + 2] = byte(b)
                if alpha {
                    // Opaque left, a ramp in the middle, a transparent band at the right.
                    pixels[i + 3] = fx < 0.3 ? 255 : fx > 0.85 ? 0 : UInt8((0.85 - fx) / 0.55 * 255)
                }
            }
        }
        return PixelBuffer(width: width, height: height, hasAlpha: alpha, pixels: pixels)
    }

    /// One flat colour (frames of test animations).
    static func solid(width: Int, height: Int, _ r: UInt8, _ g: UInt8, _ b: UInt8) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height)
        for i in stride(from: 0, to: image.pixels.count, by: 4) {
            image.pixels[i] = r; image.pixels[i + 1] = g; image.pixels[i + 2] = b
        }
        return image
    }
}

extension PixelBuffer {
    func cropped(x: Int, y: Int, width: Int, height: Int) -> PixelBuffer {
        var out = [UInt8]()
        for row in y..<y + height {
            out += pixels[((row * self.width) + x) * 4..<((row * self.width) + x + width) * 4]
        }
        return PixelBuffer(width: width, height: height, hasAlpha: hasAlpha, pixels: out)
    }
}

struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Quality {
    /// PSNR in dB over the given channels (0 R, 1 G, 2 B, 3 A) of two RGBA buffers of one size,
    /// counting only pixels where `where` holds (all by default). Identical pixels give infinity.
    static func psnr(_ a: [UInt8], _ b: [UInt8], channels: [Int] = [0, 1, 2],
                     where include: (Int) -> Bool = { _ in true }) -> Double {
        precondition(a.count == b.count)
        var sum = 0.0, n = 0
        for p in 0..<(a.count / 4) where include(p) {
            for c in channels {
                let d = Double(Int(a[p * 4 + c]) - Int(b[p * 4 + c]))
                sum += d * d
                n += 1
            }
        }
        guard n > 0, sum > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (sum / Double(n)))
    }
}

extension ImageError.Code {
    /// Refused because of the data itself (cut short or damaged).
    var isDataRefusal: Bool { self == .truncatedImage || self == .corruptImage }
}

/// Files written with libavif directly, for what AVIFCodec.encode never writes: other depths and
/// chroma formats, irot/imir, ICC profiles, sequences, grids.
enum LibAVIF {
    struct Options {
        var depth: UInt32 = 8
        var format = AVIF_PIXEL_FORMAT_YUV420
        var rotation: UInt8? = nil
        var mirror: UInt8? = nil
        var icc: [UInt8]? = nil
        /// Colour primaries, transfer characteristics, matrix coefficients (nil: libavif's defaults).
        var cicp: (UInt16, UInt16, UInt16)? = nil
        var quantizer: Int32 = 10
        var speed: Int32 = 10
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// An avifImage holding `buffer` (alpha kept when `buffer.hasAlpha`); the caller destroys it.
    static func makeImage(_ buffer: PixelBuffer, _ options: Options) throws -> UnsafeMutablePointer<avifImage> {
        let image = try #require(avifImageCreate(UInt32(buffer.width), UInt32(buffer.height), options.depth, options.format))
        image.pointee.yuvRange = AVIF_RANGE_FULL
        if let rotation = options.rotation {
            image.pointee.transformFlags |= AVIF_TRANSFORM_IROT.rawValue
            image.pointee.irot.angle = rotation
        }
        if let mirror = options.mirror {
            image.pointee.transformFlags |= AVIF_TRANSFORM_IMIR.rawValue
            image.pointee.imir.mode = mirror
        }
        if let (primaries, transfer, matrix) = options.cicp {
            image.pointee.colorPrimaries = primaries
            image.pointee.transferCharacteristics = transfer
            image.pointee.matrixCoefficients = matrix
        }
        if let icc = options.icc {
            icc.withUnsafeBufferPointer { avifImageSetProfileICC(image, $0.baseAddress, $0.count) }
        }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.ignoreAlpha = buffer.hasAlpha ? AVIF_FALSE : AVIF_TRUE
        rgb.rowBytes = UInt32(buffer.rowBytes)
        let result = buffer.pixels.withUnsafeBufferPointer { p in
            rgb.pixels = UnsafeMutablePointer(mutating: p.baseAddress)
            return avifImageRGBToYUV(image, &rgb)
        }
        guard result == AVIF_RESULT_OK else {
            avifImageDestroy(image)
            throw Failure(description: "avifImageRGBToYUV: \(String(cString: avifResultToString(result)))")
        }
        return image
    }

    static func makeEncoder(_ options: Options) throws -> UnsafeMutablePointer<avifEncoder> {
        let encoder = try #require(avifEncoderCreate())
        encoder.pointee.maxThreads = 1
        encoder.pointee.speed = options.speed
        encoder.pointee.minQuantizer = options.quantizer
        encoder.pointee.maxQuantizer = options.quantizer
        encoder.pointee.minQuantizerAlpha = options.quantizer
        encoder.pointee.maxQuantizerAlpha = options.quantizer
        return encoder
    }

    static func output(_ data: inout avifRWData) -> [UInt8] {
        defer { avifRWDataFree(&data) }
        guard let bytes = data.data else { return [] }
        return [UInt8](UnsafeBufferPointer(start: bytes, count: data.size))
    }

    static func check(_ result: avifResult, _ encoder: UnsafeMutablePointer<avifEncoder>, _ what: String) throws {
        guard result == AVIF_RESULT_OK else {
            let diag = withUnsafeBytes(of: encoder.pointee.diag.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw Failure(description: "\(what): \(String(cString: avifResultToString(result))) \(diag)")
        }
    }

    static func encodeStill(_ buffer: PixelBuffer, _ options: Options = Options()) throws -> [UInt8] {
        let image = try makeImage(buffer, options)
        defer { avifImageDestroy(image) }
        let encoder = try makeEncoder(options)
        defer { avifEncoderDestroy(encoder) }
        var out = avifRWData()
        try check(avifEncoderWrite(encoder, image, &out), encoder, "avifEncoderWrite")
        return output(&out)
    }

    /// An image sequence (`avis`), one timescale unit per frame at 10 Hz.
    static func encodeSequence(_ frames: [PixelBuffer], _ options: Options = Options()) throws -> [UInt8] {
        let encoder = try makeEncoder(options)
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.timescale = 10
        for frame in frames {
            let image = try makeImage(frame, options)
            defer { avifImageDestroy(image) }
            try check(avifEncoderAddImage(encoder, image, 1, AVIF_ADD_IMAGE_FLAG_NONE.rawValue), encoder, "avifEncoderAddImage")
        }
        var out = avifRWData()
        try check(avifEncoderFinish(encoder, &out), encoder, "avifEncoderFinish")
        return output(&out)
    }

    /// A grid image of `columns` x `rows` cells, given row by row.
    static func encodeGrid(_ cells: [PixelBuffer], columns: Int, rows: Int, _ options: Options = Options()) throws -> [UInt8] {
        let encoder = try makeEncoder(options)
        defer { avifEncoderDestroy(encoder) }
        var images: [UnsafeMutablePointer<avifImage>] = []
        defer { images.forEach { avifImageDestroy($0) } }
        for cell in cells { images.append(try makeImage(cell, options)) }
        let pointers: [UnsafePointer<avifImage>?] = images.map { UnsafePointer($0) }
        let result = pointers.withUnsafeBufferPointer {
            avifEncoderAddImageGrid(encoder, UInt32(columns), UInt32(rows), $0.baseAddress, AVIF_ADD_IMAGE_FLAG_SINGLE.rawValue)
        }
        try check(result, encoder, "avifEncoderAddImageGrid")
        var out = avifRWData()
        try check(avifEncoderFinish(encoder, &out), encoder, "avifEncoderFinish")
        return output(&out)
    }
}

/// Edits of an encoded file's boxes.
enum Boxes {
    /// Every `ispe` property (colour and alpha items) rewritten to declare `width` x `height`.
    static func patchingISPE(_ data: [UInt8], width: UInt32, height: UInt32) throws -> [UInt8] {
        var out = data
        var found = 0
        let ispe = Array("ispe".utf8)
        var i = 4
        while i + 16 <= out.count {
            if Array(out[i..<i + 4]) == ispe {
                // type, version and flags (4), width (4), height (4)
                out.replaceSubrange(i + 8..<i + 12, with: be32(width))
                out.replaceSubrange(i + 12..<i + 16, with: be32(height))
                found += 1
            }
            i += 1
        }
        try #require(found > 0, "no ispe box")
        return out
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// Offset and size of the first top-level box of `type`.
    static func topLevel(_ data: [UInt8], _ type: String) -> (offset: Int, size: Int)? {
        var offset = 0
        while offset + 8 <= data.count {
            let size = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            if String(decoding: data[offset + 4..<offset + 8], as: UTF8.self) == type { return (offset, size) }
            guard size >= 8 else { return nil }
            offset += size
        }
        return nil
    }

    /// An ftyp box with the given brands (major first).
    static func ftyp(major: String, compatible: [String]) -> [UInt8] {
        let payload = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
        return be32(UInt32(8 + payload.count)) + Array("ftyp".utf8) + payload
    }
}

/// Pillow (with its own libavif and AV1 codecs) as an independent reader and writer of AVIF.
/// Found through AVIF_REFERENCE_PYTHON, else `python3` on PATH; tests that need it are skipped
/// when neither has a Pillow that reads AVIF.
enum PillowAVIF {
    static let python: String? = {
        var candidates: [String] = []
        if let configured = ProcessInfo.processInfo.environment["AVIF_REFERENCE_PYTHON"], !configured.isEmpty {
            candidates.append(configured)
        }
        candidates.append("python3")
        for candidate in candidates {
            if let out = try? run(candidate, ["-c", "from PIL import features; print(features.check('avif'))"]),
               out.trimmingCharacters(in: .whitespacesAndNewlines) == "True" {
                return candidate
            }
        }
        return nil
    }()

    static let missing = "needs Pillow with AVIF support: set AVIF_REFERENCE_PYTHON to a python whose Pillow reads AVIF (PIL.features.check(\"avif\"))"

    struct Decoded {
        let width: Int, height: Int
        let rgba: [UInt8]
        let exifOrientation: Int
    }

    static let script = """
    import sys
    from PIL import Image
    cmd = sys.argv[1]
    if cmd == "decode":
        im = Image.open(sys.argv[2])
        orientation = im.getexif().get(0x0112, 1)
        rgba = im.convert("RGBA")
        open(sys.argv[3], "wb").write(rgba.tobytes())
        print(rgba.width, rgba.height, orientation)
    elif cmd == "encode":
        w, h, mode, quality, orientation = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6]), int(sys.argv[7])
        raw = open(sys.argv[2], "rb").read()
        im = Image.frombytes("RGBA", (w, h), raw)
        if mode == "RGB":
            im = im.convert("RGB")
        options = {}
        if orientation != 1:
            exif = Image.Exif()
            exif[0x0112] = orientation
            options["exif"] = exif.tobytes()
        im.save(sys.argv[8], "AVIF", quality=quality, speed=8, **options)
        print("ok")
    """

    static func decode(_ avif: [UInt8]) throws -> Decoded {
        let python = try #require(python, Comment(rawValue: missing))
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.avif"), output = dir.appendingPathComponent("out.rgba")
        try Data(avif).write(to: input)
        let out = try run(python, ["-c", script, "decode", input.path, output.path])
        let fields = out.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(fields.count == 3, "Pillow said: \(out)")
        let rgba = [UInt8](try Data(contentsOf: output))
        try #require(rgba.count == fields[0] * fields[1] * 4)
        return Decoded(width: fields[0], height: fields[1], rgba: rgba, exifOrientation: fields[2])
    }

    static func encode(_ image: PixelBuffer, quality: Int, orientation: Int = 1) throws -> [UInt8] {
        let python = try #require(python, Comment(rawValue: missing))
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.rgba"), output = dir.appendingPathComponent("out.avif")
        try Data(image.pixels).write(to: input)
        _ = try run(python, ["-c", script, "encode", input.path, "\(image.width)", "\(image.height)",
                             image.hasAlpha ? "RGBA" : "RGB", "\(quality)", "\(orientation)", output.path])
        return [UInt8](try Data(contentsOf: output))
    }

    private static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("avif-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    struct ProcessFailure: Error, CustomStringConvertible { let description: String }

    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> String {
        let result = try ChildProcess.run("/usr/bin/env", [program] + arguments, timeoutSeconds: 600)
        guard result.status == 0 else {
            throw ProcessFailure(description: "\(program) exited \(result.status): \(result.stderrText)")
        }
        return result.stdoutText
    }
}
