import Foundation
import ImageCore
import ImageOps
import ImageQuality
@testable import JPEGCodec
import Testing
import TestSupport

/// A progressive JPEG decoded at 1/4 without its final AC refinement scans (the last bit of each AC
/// coefficient) makes a thumbnail within SSIM 0.995 of the whole file's, from fewer bytes. The
/// thumbnail is the decode halved by the Lanczos filter, as the thumbnailer's default decode
/// headroom of 2 makes it; the decoded pixels themselves differ more (SSIM 0.993 on one photo).
struct JPEGQuarterScaleTests {
    static let quarter = DecodeScaleHint(minimumScale: 0.25)

    /// The cut stream's share of the bytes, after checking its 1/4 decode against the whole file's.
    static func expectClose(_ data: [UInt8], _ name: String) throws -> Double {
        let cut = try #require(try JPEGDecoder.structure(of: data).quarterScaleStream(data), "\(name): no scan left out")
        let fast = try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: quarter, keepingCMYK: false)
        let whole = try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: quarter, keepingCMYK: false, cuttingScans: false)
        try #require(fast.pixels.width == whole.pixels.width && fast.pixels.height == whole.pixels.height, "\(name)")
        let (width, height) = (max(1, whole.pixels.width / 2), max(1, whole.pixels.height / 2))
        let ssim = SSIM.compare(Resampler.resize(fast.pixels, width: width, height: height),
                                Resampler.resize(whole.pixels, width: width, height: height))
        #expect(ssim >= 0.995, "\(name): SSIM \(ssim) against the whole file's thumbnail at 1/4")
        #expect(fast.pixels.pixels != whole.pixels.pixels, "\(name): the cut changed nothing, so the test cannot tell")
        return Double(cut.count) / Double(data.count)
    }

    @Test("The corpus's photos, progressive as they are and made progressive here: within SSIM 0.995 at 1/4, from fewer bytes",
          .requires(CodecTestFiles.photos != nil, Comment(rawValue: CodecTestFiles.photosMissing)))
    func corpusPhotos() throws {
        let photos = try #require(CodecTestFiles.photos)
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: photos.path).sorted() where name.lowercased().hasSuffix(".jpg") {
            var data = [UInt8](try Data(contentsOf: photos.appendingPathComponent(name)))
            if try JPEGDecoder.structure(of: data).coding != .progressive {
                // libjpeg's default progressive script, as jpegtran -progressive writes it.
                let pixels = try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: .fullSize, keepingCMYK: false).pixels
                data = try JPEGCodec.encode(pixels, quality: 90, progressive: true)
            }
            guard try JPEGDecoder.structure(of: data).quarterScaleStream(data) != nil else { continue }
            let share = try Self.expectClose(data, name)
            #expect(share < 0.9, "\(name): the cut stream keeps \(Int(share * 100)) % of the bytes")
            checked += 1
        }
        #expect(checked >= 10, "only \(checked) progressive photos with final refinement scans")
    }
}
