import Foundation
import ImageCore
import Testing
import TestSupport
@testable import JXLCodec

/// Broken JPEG XL: every refusal has a stable code, nothing crashes or hangs, nothing is decoded
/// from a file cut short.
@Suite("JPEG XL hostile input", .timeLimit(.minutes(10)))
struct JXLHostileTests {
    static let dataCodes: Set<ImageError.Code> = [.corruptImage, .truncatedImage, .unsupportedFormat, .pixelLimitExceeded]

    @Test("a file cut anywhere is truncated_image (an animation cut after its first frame still gives that frame)", arguments: JXLFiles.all)
    func truncatedEverywhere(_ name: String) throws {
        let data = try JXLFiles.bytes(name)
        let whole = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        var firstFrameCuts = 0
        for length in 1..<data.count {
            let cut = Array(data.prefix(length))
            do {
                let decoded = try JXLCodec.decode(cut, limits: DecodeLimits(), scale: .fullSize)
                // Only a bare codestream's animation can be cut where libjxl does not look: past the
                // first frame, which is then whole. A container's boxes are all checked.
                #expect(whole.info.isAnimated && data[0] == 0xFF, "\(name) cut at \(length) of \(data.count) decoded")
                #expect(decoded.pixels == whole.pixels, "\(name) cut at \(length): the first frame differs")
                firstFrameCuts += 1
            } catch {
                #expect(error.code == .truncatedImage, "\(name) cut at \(length) of \(data.count): \(error)")
            }
            // The header alone answers while it is whole; a cut inside it is truncated too.
            do {
                _ = try JXLCodec.readInfo(cut, limits: DecodeLimits())
            } catch {
                #expect(error.code == .truncatedImage, "\(name) cut at \(length), readInfo: \(error)")
            }
        }
        if whole.info.isAnimated { print("JXL \(name): \(firstFrameCuts) cuts past the first frame gave that frame") }
    }

    /// Seeded damage, at least 2,000 mutants of each sample: bit flips, bytes set to random, 0x00
    /// or 0xFF (the header's fields set to huge values), bytes inserted and removed, runs zeroed.
    /// Each mutant decodes to a well-formed image or is refused with a data code, within 2 s.
    @Test("seeded mutations: a well-formed image or a known refusal, each quickly", arguments: [
        "lossy_rgb_48x32.jxl", "lossless_rgba_32x24.jxl", "container_lossy_rgb_48x32.jxl", "animated_3frames_24x16.jxl",
        "icc_lossless_48x32.jxl", "lossy_grey_32x24.jxl", "jpeg_recompressed_48x32.jxl", "orientation_6.jxl",
        "p3_lossy_48x32.jxl", "lossless_grey16_32x24.jxl",
    ])
    func mutations(_ name: String) throws {
        let data = try JXLFiles.bytes(name)
        // Seeded from the name (FNV-1a): each file has its own mutants, the same every run.
        var random = SeededRandom(seed: name.utf8.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 })
        // A tighter pixel limit than the default keeps 2,000 decodes quick when a mutant claims a
        // large size; the default limits are the limits suite's concern.
        let limits = DecodeLimits(maxPixels: 1 << 22, maxDecodeBytes: 256 << 20)
        var outcomes: [String: Int] = [:]
        var slowest = 0.0
        let mutants = 2_000
        for index in 0..<mutants {
            let mutant = Self.mutate(data, &random)
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                let decoded = try JXLCodec.decode(mutant, limits: limits, scale: .fullSize)
                #expect(decoded.pixels.pixels.count == decoded.pixels.width * decoded.pixels.height * 4)
                #expect(decoded.info.width == decoded.pixels.width && decoded.info.height == decoded.pixels.height)
                outcomes["decoded", default: 0] += 1
            } catch {
                #expect(Self.dataCodes.contains(error.code), "\(name) mutant \(index): \(error)")
                outcomes[error.code.rawValue, default: 0] += 1
            }
            // The header-only entry points on every fourth mutant.
            if index % 4 == 0 {
                do { _ = try JXLCodec.readInfo(mutant, limits: limits) } catch { #expect(Self.dataCodes.contains(error.code)) }
                do { _ = try JXLCodec.embeddedColor(in: mutant) } catch { #expect(Self.dataCodes.contains(error.code)) }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            slowest = max(slowest, seconds)
            #expect(seconds < 2, "\(name) mutant \(index) took \(seconds) s")
        }
        print("JXL \(name): \(mutants) mutants: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); slowest \(String(format: "%.3f", slowest)) s")
        #expect(outcomes.values.reduce(0, +) == mutants)
    }

    static func mutate(_ data: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var out = data
        let edits = 1 + random.below(4)
        for _ in 0..<edits {
            guard !out.isEmpty else { break }
            // Early bytes hold the signature, the size and the metadata: hit them more often.
            let at = random.below(2) == 0 ? random.below(min(out.count, 48)) : random.below(out.count)
            switch random.below(7) {
            case 0, 1: out[at] ^= UInt8(1 << random.below(8))
            case 2: out[at] = UInt8(random.below(256))
            case 3: out[at] = 0xFF
            case 4: out[at] = 0x00
            case 5: out.insert(UInt8(random.below(256)), at: at)
            default:
                let end = min(out.count, at + 1 + random.below(16))
                if random.below(2) == 0 { out.removeSubrange(at..<end) } else { out.replaceSubrange(at..<end, with: repeatElement(0, count: end - at)) }
            }
        }
        return out
    }
}
