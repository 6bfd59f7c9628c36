import ColorManagement
import Foundation
import ImageCodecs
import ImageCore
import TestSupport
import Testing

/// PngSuite's gamma files (g03 to g25) hold one picture encoded with file gammas from 0.35 to 2.5
/// and no cHRM: after gamma correction to sRGB they should all look alike. Each pixel must be what
/// the gAMA chunk says: sRGB's encoding of (sample / 255)^(1 / file gamma), within 2 of 255.
@Suite("PNG gamma")
struct PNGGammaTests {
    static let files: [String] = {
        guard let folder = TestPaths.corpus("pngsuite"),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.filter { $0.hasPrefix("g") && $0.hasSuffix(".png") }.sorted()
    }()

    /// PngSuite's documentation of its gamma files: g03 is a file gamma of 0.35, … g25 of 2.50.
    static let fileGammas: [String: Double] = ["g03": 0.35, "g04": 0.45, "g05": 0.55, "g07": 0.70, "g10": 1.00, "g25": 2.50]

    static func sRGBEncoded(_ linear: Double) -> Double {
        linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
    }

    @Test(.requires(!files.isEmpty, Comment(rawValue: TestPaths.corporaMissing)))
    func gammaFilesAreCorrectedToSRGB() throws {
        let folder = try #require(TestPaths.corpus("pngsuite"))
        for name in Self.files {
            let data = try TestPaths.bytes(folder.appendingPathComponent(name))
            let fileGamma = try #require(Self.fileGammas[String(name.prefix(3))], "\(name): not one of PngSuite's gamma files")
            let stored = try ImageCodecs.decodeAsStored(data)
            let (converted, outcome) = try ImageCodecs.decodeToSRGB(data)
            #expect(stored.color == .pngGamma(fileGamma: fileGamma, chromaticities: nil), "\(name): \(stored.color)")
            guard case .converted = outcome else {
                Issue.record("\(name): expected a gamma conversion, got \(outcome)")
                continue
            }
            var worst = 0.0
            for i in stride(from: 0, to: stored.pixels.pixels.count, by: 4) {
                for c in 0..<3 {
                    let linear = pow(Double(stored.pixels.pixels[i + c]) / 255, 1 / fileGamma)
                    let expected = 255 * Self.sRGBEncoded(linear)
                    let d = abs(Double(converted.pixels.pixels[i + c]) - expected)
                    worst = max(worst, d)
                }
            }
            #expect(worst <= 2, "\(name): a sample is \(worst) from the gamma-corrected value")
        }
    }
}
