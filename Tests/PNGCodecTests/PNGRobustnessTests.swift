import Foundation
import ImageCore
@testable import PNGCodec
import Testing
import TestSupport

/// Hostile input: the broken corpus, oversized headers, zlib bombs.
@Suite("PNG robustness")
struct PNGRobustnessTests {
    struct BrokenFile: Sendable, CustomTestStringConvertible {
        var path: String
        var verdict: String
        var testDescription: String { path }
    }

    /// Every file in broken/ that is a PNG by its signature (the manifest's `format`), whatever its name.
    static let brokenPNGs: [BrokenFile] = ((try? TestPaths.manifest("broken")) ?? [])
        .filter { $0["format"] == "png" }
        .compactMap { row in row["file"].map { BrokenFile(path: $0, verdict: row["libs_verdict"] ?? "") } }
        .sorted { $0.path < $1.path }

    static let acceptedRefusals: Set<ImageError.Code> = [.corruptImage, .truncatedImage, .pixelLimitExceeded]

    @Test("the broken corpus lists its PNG files",
          .requires(TestPaths.corpora != nil, "\(TestPaths.corporaMissing)"))
    func corpusIsThere() {
        #expect(Self.brokenPNGs.count == 254)
    }

    @Test("every PNG in the broken corpus decodes or is refused with an ImageError, on both paths",
          .requires(TestPaths.corpora != nil, "\(TestPaths.corporaMissing)"),
          arguments: brokenPNGs)
    func brokenFile(_ file: BrokenFile) throws {
        let data = try TestPaths.bytes(try #require(TestPaths.corpus("broken/\(file.path)")))
        var outcomes: [String] = []
        for scale in [DecodeScaleHint.fullSize, DecodeScaleHint(minimumScale: 0.25)] {
            do {
                let image = try PNGCodec.decode(data, limits: DecodeLimits(), scale: scale)
                #expect(image.pixels.pixels.count == image.pixels.width * image.pixels.height * 4)
                #expect(image.pixels.width >= 1 && image.pixels.width <= image.info.width)
                outcomes.append("decoded")
            } catch {
                #expect(Self.acceptedRefusals.contains(error.code), "\(file.path): \(error)")
                #expect(!error.message.isEmpty)
                outcomes.append(error.code.rawValue)
            }
        }
        // Both paths read the same bytes the same way, so they agree.
        #expect(outcomes[0] == outcomes[1], "\(file.path): full \(outcomes[0]), scaled \(outcomes[1])")
        // readInfo never crashes either; when decode succeeds, so does readInfo.
        let info = PNGTestSupport.error { () throws(ImageError) in try PNGCodec.readInfo(data) }
        if outcomes[0] == "decoded" { #expect(info == nil) }
        // What libpng refuses outright, thumbd refuses too; what decodes cleanly, thumbd decodes.
        if file.verdict == "REJECT" { #expect(outcomes[0] != "decoded", "\(file.path): libpng rejects it") }
        if file.verdict == "OK" { #expect(outcomes[0] == "decoded", "\(file.path): libpng decodes it") }
    }

    @Test("65536 x 65536 is refused by the pixel limit, before any pixel memory",
          .requires(TestPaths.corpora != nil, "\(TestPaths.corporaMissing)"))
    func uint32Limit() throws {
        let data = try TestPaths.bytes(try #require(TestPaths.corpus("broken/sharp/65536-uint32-limit.png")))
        let info = try PNGCodec.readInfo(data, limits: DecodeLimits(maxPixels: .max))
        #expect(info.width == 65536 && info.height == 65536)
        #expect(throws: ImageError.self, "readInfo checks the limit it is given") { try PNGCodec.readInfo(data) }

        var stats = PNGCodec.DecodeStats()
        let error = PNGTestSupport.error { () throws(ImageError) in
            try PNGCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.01), stats: &stats)
        }
        #expect(stats.pixelBytes == 0, "refused after allocating pixel memory")
        #expect(stats.libpngPeakBytes < 256 << 10, "libpng held \(stats.libpngPeakBytes) bytes")
        #expect(error?.code == .pixelLimitExceeded, "\(String(describing: error))")
        #expect(error?.message.contains("65536x65536") == true)
        // With the pixel limit lifted, the memory budget still refuses it (16 GiB of RGBA).
        let memory = PNGTestSupport.error { () throws(ImageError) in
            try PNGCodec.decode(data, limits: DecodeLimits(maxPixels: Int.max), scale: .fullSize)
        }
        #expect(memory?.code == .pixelLimitExceeded, "\(String(describing: memory))")
    }

    @Test("Pillow's zTXt decompression bomb decodes without inflating its text",
          .requires(TestPaths.corpora != nil, "\(TestPaths.corporaMissing)"))
    func pillowBomb() throws {
        let data = try TestPaths.bytes(try #require(TestPaths.corpus("broken/pillow/png_decompression_dos.png")))
        var stats = PNGCodec.DecodeStats()
        let image = try PNGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize, stats: &stats)
        #expect(image.pixels.width == 1 && image.pixels.height == 1)
        #expect(stats.libpngPeakBytes < 256 << 10, "libpng held \(stats.libpngPeakBytes) bytes")
    }

    @Test("120 MiB of zTXt text in a 120 KB file is never inflated")
    func textBomb() throws {
        let data = try PNGTestSupport.testImage("ztxt-bomb.png")
        #expect(PNGTestSupport.chunkTypes(data).filter { $0 == "zTXt" }.count == 16)
        var stats = PNGCodec.DecodeStats()
        let image = try PNGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize, stats: &stats)
        #expect(image.pixels.width == 4 && image.pixels.height == 4)
        #expect(image.pixels.pixel(x: 3, y: 2) == (17, 18, 6, 255))
        #expect(stats.libpngPeakBytes < 256 << 10, "libpng held \(stats.libpngPeakBytes) bytes decoding a text bomb")
        // Even a budget far below one inflated chunk is enough: the text is skipped, not inflated.
        let tight = try PNGCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: 1 << 20), scale: .fullSize)
        #expect(tight.pixels == image.pixels)
    }

    @Test("libpng's own allocations are capped by maxDecodeBytes")
    func libpngMemoryBudget() throws {
        let data = try PNGTestSupport.testImage("grey16.png")
        var stats = PNGCodec.DecodeStats()
        _ = try PNGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize, stats: &stats)
        #expect(stats.libpngPeakBytes > 4096, "the counting allocator saw libpng's allocations")
        // Every decode is refused past its budget: by the estimate before decoding, or by the
        // counting allocator inside libpng. Either way it is a clean pixel_limit_exceeded.
        for budget in [stats.libpngPeakBytes / 4, stats.libpngPeakBytes / 2, stats.libpngPeakBytes - 1] {
            let error = PNGTestSupport.error { () throws(ImageError) in
                try PNGCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: budget), scale: .fullSize)
            }
            #expect(error?.code == .pixelLimitExceeded, "budget \(budget): \(String(describing: error))")
        }
        // The allocator's own cap, below what libpng needs, on both decode paths: refused inside
        // libpng (never a crash, never a partial image).
        for scale in [DecodeScaleHint.fullSize, DecodeScaleHint(minimumScale: 0.5)] {
            for cap in [1024, 8 << 10, stats.libpngPeakBytes - 1] {
                var capped = PNGCodec.DecodeStats()
                let error = PNGTestSupport.error { () throws(ImageError) in
                    try PNGCodec.decode(data, limits: DecodeLimits(), scale: scale, stats: &capped, libpngMemoryLimit: cap)
                }
                #expect(error?.code == .pixelLimitExceeded, "cap \(cap): \(String(describing: error))")
                #expect(capped.libpngPeakBytes <= cap)
            }
        }
    }

    @Test("garbage after a valid signature, and random damage, never crash")
    func fuzzedDamage() throws {
        let original = try PNGTestSupport.testImage("gradient-rgba8.png")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var refused = 0
        for round in 0..<300 {
            var data = original
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            let flips = 1 + Int(state % 4)
            for _ in 0..<flips {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                let at = 8 + Int(state % UInt64(data.count - 8))
                data[at] ^= UInt8(truncatingIfNeeded: state >> 40) | 1
            }
            if round % 3 == 0 { data = Array(data.prefix(8 + Int(state % UInt64(data.count - 8)))) }
            do {
                let image = try PNGCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: round % 2 == 0 ? 1 : 0.3))
                #expect(image.pixels.pixels.count == image.pixels.width * image.pixels.height * 4)
            } catch {
                #expect(Self.acceptedRefusals.contains(error.code), "round \(round): \(error)")
                refused += 1
            }
        }
        #expect(refused > 150, "most damaged copies should be refused (CRCs catch them)")
    }
}

@Suite("PNG encode")
struct PNGEncodeTests {
    @Test("RGBA round trip is exact and writes colour type 6 with no ancillary chunks")
    func rgbaRoundTrip() throws {
        let image = PNGTestSupport.noiseImage(width: 53, height: 29, hasAlpha: true, seed: 42)
        let data = try PNGCodec.encode(image)
        #expect(data[25] == 6 && data[24] == 8, "IHDR colour type 6, depth 8")
        #expect(PNGTestSupport.chunkTypes(data).allSatisfy { ["IHDR", "IDAT", "IEND"].contains($0) })
        let decoded = try PNGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.pixels == image)
        #expect(decoded.info.hasAlpha)
    }

    @Test("opaque round trip is exact and writes RGB (colour type 2)")
    func rgbRoundTrip() throws {
        let image = PNGTestSupport.noiseImage(width: 31, height: 47, hasAlpha: false, seed: 7)
        let data = try PNGCodec.encode(image)
        #expect(data[25] == 2 && data[24] == 8, "IHDR colour type 2, depth 8")
        #expect(PNGTestSupport.chunkTypes(data).allSatisfy { ["IHDR", "IDAT", "IEND"].contains($0) })
        let decoded = try PNGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.pixels == image)
        #expect(!decoded.info.hasAlpha)
    }

    @Test("a 1x1 image and a wide strip round-trip")
    func edgeSizes() throws {
        for (w, h) in [(1, 1), (1000, 2), (2, 700)] {
            let image = PNGTestSupport.noiseImage(width: w, height: h, hasAlpha: w == 1, seed: UInt64(w * 31 + h))
            let decoded = try PNGCodec.decode(try PNGCodec.encode(image), limits: DecodeLimits(), scale: .fullSize)
            #expect(decoded.pixels == image)
        }
    }
}
