import ColorManagement
import Foundation
import ImageCore
import ImageQuality
import Testing
import TIFFCodec

/// Three photos of the shared corpus made into TIFFs by Pillow at test time (RGB LZW, 16-bit RGB
/// Deflate, CMYK LZW with Ghostscript's profile when the system has it), decoded by thumbd and by
/// Pillow. Nothing of the photos is committed.
@Suite("TIFF photos", .serialized,
       .requires(PillowDecode.available && TIFFTestFiles.photos != nil, "../shared/corpora/photos is absent (or Pillow is): photo tests skipped"))
struct TIFFPhotoTests {
    static let photoNames = ["jxl_flower_q85_420.jpg", "lomiri_Picture_1A_by_freespace.jpg", "mate_Blinds.jpg"]

    static var photos: [URL] {
        guard let folder = TIFFTestFiles.photos else { return [] }
        let named = photoNames.map { folder.appendingPathComponent($0) }.filter { FileManager.default.fileExists(atPath: $0.path) }
        if named.count == photoNames.count { return named }
        // Another corpus: its first three JPEGs.
        let all = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return Array(all.filter { $0.pathExtension.lowercased() == "jpg" }.sorted { $0.path < $1.path }.prefix(3))
    }

    @Test("photos as TIFF decode as Pillow decodes them", arguments: photos)
    func photo(_ source: URL) throws {
        let folder = try TIFFTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var arguments = [TIFFTestFiles.script, "convert-photo", source.path, folder.path]
        if let profile = TIFFTestFiles.systemCMYKProfile { arguments.append(profile) }
        let converted = try Python.run(arguments)
        try #require(converted.status == 0, "\(converted.stderr)")
        let files = converted.stdout.split(separator: "\n").map { URL(fileURLWithPath: String($0)) }
        #expect(files.count == 3, "16-bit needs numpy: \(converted.stdout)")

        var eightBit: PixelBuffer?
        for file in files {
            let name = file.lastPathComponent
            var decoded = try TIFFCodec.decode([UInt8](try Data(contentsOf: file)), limits: DecodeLimits(), scale: .fullSize)
            let reference = try PillowDecode.decode(file)
            try #require(decoded.pixels.width == reference.width && decoded.pixels.height == reference.height)
            let worst = Compare.maxDifference(decoded.pixels.pixels, reference.bytes)
            if name.contains("cmyk") {
                // The raw inks, then (with a profile) thumbd's colour path against Pillow + ImageCms.
                #expect(decoded.samples == .cmyk(inverted: false))
                #expect(worst.difference == 0, "\(name): inks differ by \(worst.difference)")
                print("TIFF photo \(name): C, M, Y, K samples, largest difference \(worst.difference)")
                if case .iccProfile = decoded.color {
                    let outcome = ColorManagement.convertToSRGB(&decoded)
                    let srgb = try PillowDecode.decode(file, command: "reference-srgb")
                    let ssim = SSIM.compare(decoded.pixels, srgb.pixels, channels: .rgb)
                    print("TIFF photo \(name) through its CMYK profile (\(outcome.headerValue)): SSIM \(ssim) against Pillow + ImageCms")
                    #expect(ssim >= 0.97, "\(name): SSIM \(ssim) after colour management")
                }
            } else {
                let ssim = SSIM.compare(decoded.pixels, reference.pixels)
                print("TIFF photo \(name): SSIM \(ssim), largest difference \(worst.difference)")
                #expect(ssim >= 0.97, "\(name): SSIM \(ssim)")
                // Lossless: exact at 8 bits; 16 bits rounded by thumbd, cut to the high byte by Pillow.
                #expect(worst.difference <= (name.contains("rgb16") ? 1 : 0), "\(name): differs by \(worst.difference)")
                if name.contains("rgb-lzw") { eightBit = decoded.pixels }
                // The 16-bit file holds v * 257 plus less than half a level: rounding gives v back.
                if name.contains("rgb16"), let eightBit {
                    let same = decoded.pixels == eightBit
                    #expect(same, "\(name): 16-bit samples not rounded to the nearest 8-bit level")
                }
            }
        }
    }
}
