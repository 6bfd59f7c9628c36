import Foundation
import ImageCodecs
import ImageCore
import InputFiles
import TestSupport
import ThumbVariant
import Thumbnailer

/// One photo's figures for `thumbd-bench formats`.
struct BenchFormatRow: Codable, Sendable {
    struct Encoding: Codable, Sendable {
        var format: String
        var quality: Int
        var bytes: Int
        var encodeMs: Double
        var ssim: Double
    }

    var file: String
    /// JPEG at the default quality, then WebP, AVIF and JPEG XL at the lowest quality whose SSIM reaches it.
    var encodings: [Encoding]
    /// The whole making of the thumbnail (decode, resize, encode), JPEG, AVIF and JPEG XL: a miss's CPU work.
    var makeJPEGMs: Double
    var makeAVIFMs: Double
    var makeJXLMs: Double
    /// Rendering (decode, colour, resize, placeholder) of the photo untagged, and tagged with an
    /// Adobe RGB (1998) profile; the colour stage's own time.
    var renderUntaggedMs: Double?
    var renderTaggedMs: Double?
    var colorMs: Double?
}

/// Measures one photo: each encoder at equal SSIM against the careful reference, and what colour
/// management costs. Timings are medians of `rounds`, single-threaded.
struct BenchFormats: Sendable {
    var size: Int
    var rounds: Int
    var avifSpeed: Int
    /// JPEG's quality: the SSIM the other formats are brought to.
    var jpegQuality: Int = EncodeSettings.defaultQuality
    /// Adobe RGB (1998) from Ghostscript's ICC set, when installed.
    var profile: [UInt8]?

    func measure(_ file: BenchFile) throws -> BenchFormatRow {
        let bytes = try InputFile.read(file.path)
        let reference = try BenchQuality.reference(bytes, size: size)
        let request = ThumbnailRequest(size: size, fit: .cover)
        let pixels = try Thumbnailer.render(from: bytes, request).pixels
        let opaque = pixels.flattened()

        func encoding(_ settings: EncodeSettings, quality: Int) throws -> BenchFormatRow.Encoding {
            var output: [UInt8] = []
            let ms = try timed { output = try ImageCodecs.encode(opaque, settings) }
            let ssim = BenchQuality.score(try ImageCodecs.decode(output).pixels, against: reference) ?? 0
            return .init(format: settings.format.rawValue, quality: quality, bytes: output.count, encodeMs: ms, ssim: ssim)
        }
        let jpeg = try encoding(.jpeg(quality: jpegQuality), quality: jpegQuality)
        /// The lowest quality whose SSIM reaches JPEG's (SSIM grows with quality, so bisect).
        func matching(_ make: (Int) -> EncodeSettings) throws -> BenchFormatRow.Encoding {
            var low = 1, high = 100
            while low < high {
                let mid = (low + high) / 2
                let ssim = BenchQuality.score(try ImageCodecs.decode(try ImageCodecs.encode(opaque, make(mid))).pixels,
                                              against: reference) ?? 0
                if ssim >= jpeg.ssim { high = mid } else { low = mid + 1 }
            }
            return try encoding(make(low), quality: low)
        }
        let webp = try matching { .webp(quality: $0) }
        let avif = try matching { .avif(quality: $0, speed: avifSpeed) }
        let jxl = try matching { .jxl(quality: $0) }

        let maker = ThumbnailMaker(encoder: EncoderOptions(avifSpeed: avifSpeed))
        let makeJPEG = try timed { _ = try maker.make(bytes, as: Variant(size: size, format: .jpeg, quality: jpegQuality)) }
        let makeAVIF = try timed { _ = try maker.make(bytes, as: Variant(size: size, format: .avif, quality: avif.quality)) }
        let makeJXL = try timed { _ = try maker.make(bytes, as: Variant(size: size, format: .jxl, quality: jxl.quality)) }

        var row = BenchFormatRow(file: file.name, encodings: [jpeg, webp, avif, jxl], makeJPEGMs: makeJPEG, makeAVIFMs: makeAVIF,
                                 makeJXLMs: makeJXL)
        if let profile, file.format == .jpeg {
            let tagged = ICCTagging.jpeg(bytes, profile: profile)
            row.renderUntaggedMs = try timed { _ = try Thumbnailer.render(from: bytes, request) }
            var colour: [Double] = []
            row.renderTaggedMs = try timed {
                colour.append(Self.milliseconds(try Thumbnailer.render(from: tagged, request).timings.color))
            }
            row.colorMs = BenchStats.median(colour)
        }
        return row
    }

    /// Median milliseconds of `rounds` runs of `body`, after one unmeasured run.
    private func timed(_ body: () throws -> Void) throws -> Double {
        try body()
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            try body()
            samples.append(Self.milliseconds(ContinuousClock.now - start))
        }
        return BenchStats.median(samples) ?? 0
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
