import Foundation
import ImageCore
import Testing
@testable import JXLCodec

/// Real photos (../shared/corpora/photos, third-party, never copied into the repo) made into JPEG XL
/// by cjxl at test time, in a temporary folder: its default lossy coding, and the lossless
/// recompression of the JPEG itself. Decoded by thumbd and by djxl.
@Suite("JPEG XL real photos", .requires(Tools.available && JXLFiles.photos != nil, Comment(rawValue: Tools.missing ?? JXLFiles.photosMissing)))
struct JXLPhotoTests {
    /// Three of the smaller photos (1.5 to 2.3 MP: cjxl's default effort takes seconds a megapixel
    /// on this machine), 4:2:0, 4:2:2 and 4:4:4; any three when these are gone.
    static let photos: [URL] = {
        let preferred = ["mate_FreshFlower.jpg", "mate_Blinds.jpg", "lomiri_Picture_1A_by_freespace.jpg"]
        guard let folder = JXLFiles.photos else { return [] }
        let found = preferred.map { folder.appendingPathComponent($0) }.filter { FileManager.default.fileExists(atPath: $0.path) }
        return found.count == 3 ? found : JXLFiles.photoFiles(3)
    }()

    @Test("cjxl's default lossy coding of a photo: thumbd's decode matches djxl's", arguments: Self.photos.map(\.lastPathComponent))
    func defaultLossy(_ name: String) throws {
        let photo = try #require(JXLFiles.photos).appendingPathComponent(name)
        // cjxl takes a JPEG's pixels (not its coefficients) only with --lossless_jpeg=0; otherwise
        // its defaults (distance 1, effort 7: 6 s for the 2.3 MP photo here).
        let data = try Tools.cjxl(photo, ["--lossless_jpeg=0"])
        try Self.compareWithDjxl(data, name: "\(name) lossy", photo: photo)
    }

    @Test("cjxl's lossless recompression of a JPEG: thumbd's decode matches djxl's and the JPEG's own pixels", arguments: Self.photos.map(\.lastPathComponent))
    func jpegRecompression(_ name: String) throws {
        let photo = try #require(JXLFiles.photos).appendingPathComponent(name)
        let data = try Tools.cjxl(photo, [])
        let jpegBytes = (try FileManager.default.attributesOfItem(atPath: photo.path)[.size] as? Int) ?? 0
        print("JXL \(name): JPEG \(jpegBytes) bytes recompressed to \(data.count)")
        #expect(data.count < jpegBytes, "lossless recompression should be smaller")
        let decoded = try Self.compareWithDjxl(data, name: "\(name) recompressed", photo: photo)
        // The JPEG decoded by Pillow (libjpeg-turbo): the same coefficients through another IDCT.
        let jpeg = try Tools.pillowRGBA(photo)
        let ssim = Compare.minimumSSIM(decoded, jpeg)
        print("JXL \(name) recompressed vs Pillow's JPEG decode: minimum RGB SSIM \(ssim), max difference \(Compare.maxDifference(decoded, jpeg))")
        #expect(ssim >= 0.97)
    }

    /// thumbd against djxl: SSIM >= 0.97 (in practice the same library gives the same samples).
    @discardableResult
    static func compareWithDjxl(_ data: [UInt8], name: String, photo: URL) throws -> PixelBuffer {
        let decoded = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let reference = try Tools.djxl(data)
        try #require(decoded.pixels.width == reference.pixels.width && decoded.pixels.height == reference.pixels.height)
        let ssim = Compare.minimumSSIM(decoded.pixels, reference.pixels)
        let difference = Compare.maxDifference(decoded.pixels, reference.pixels)
        print("JXL \(name) \(decoded.pixels.width)x\(decoded.pixels.height), \(data.count) bytes: vs djxl minimum RGB SSIM \(ssim), max difference \(difference)")
        #expect(ssim >= 0.97, "\(name)")
        #expect(difference <= 1, "\(name)")
        #expect(decoded.color == .sRGB || { if case .iccProfile = decoded.color { true } else { false } }(), "\(name): \(decoded.color)")
        return decoded.pixels
    }
}
