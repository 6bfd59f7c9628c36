import Foundation
import ImageCore
@testable import JPEGCodec
import Testing
import TestSupport

/// A progressive JPEG decoded at 1/8 from its DC-scale stream (the AC scans of its full-resolution
/// components left out) has exactly the pixels of the whole file decoded at 1/8.
struct JPEGDCScaleTests {
    static let eighth = DecodeScaleHint(minimumScale: 0.125)

    /// The decode through the cut stream and through the whole file, pixel for pixel; returns the
    /// cut stream's share of the file's bytes.
    @discardableResult
    static func expectSamePixels(_ data: [UInt8], _ name: String) throws -> Double {
        let structure = try JPEGDecoder.structure(of: data)
        let cut = try #require(structure.dcScaleStream(data), "\(name): no scan left out")
        let fast = try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: eighth, keepingCMYK: false)
        let whole = try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: eighth, keepingCMYK: false, cuttingScans: false)
        #expect(fast.pixels.width == whole.pixels.width && fast.pixels.height == whole.pixels.height, "\(name)")
        let differing = zip(fast.pixels.pixels, whole.pixels.pixels).filter { $0 != $1 }.count
        #expect(differing == 0, "\(name): \(differing) bytes differ from the whole file's 1/8 decode")
        return Double(cut.count) / Double(data.count)
    }

    @Test("Our own progressive files (4:2:0): the same 1/8 pixels, from a smaller stream")
    func ownProgressiveFiles() throws {
        for (width, height) in [(301, 203), (640, 480), (17, 9)] {
            let data = try JPEGCodec.encode(SyntheticImage.gradient(width: width, height: height), quality: 90, progressive: true)
            let share = try Self.expectSamePixels(data, "\(width)x\(height)")
            #expect(share < 1)
        }
    }

    @Test("The corpus's progressive photos (4:4:4, 4:2:2 and 4:2:0, up to 24 MP): the same 1/8 pixels, from a stream of at most two thirds of their bytes",
          .requires(CodecTestFiles.photos != nil, Comment(rawValue: CodecTestFiles.photosMissing)))
    func corpusProgressivePhotos() throws {
        let photos = try #require(CodecTestFiles.photos)
        let folders = [photos, photos.deletingLastPathComponent().appendingPathComponent("large")]
        var checked = 0
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where name.lowercased().hasSuffix(".jpg") {
                let data = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
                guard try JPEGDecoder.structure(of: data).coding == .progressive else { continue }
                let share = try Self.expectSamePixels(data, name)
                #expect(share < 0.67, "\(name): the cut stream keeps \(Int(share * 100)) % of the bytes")
                checked += 1
            }
        }
        #expect(checked >= 5, "only \(checked) progressive photos found")
    }

    @Test("Nothing is cut from a baseline file, and nothing at 1/2")
    func onlyProgressiveAtOneEighthAndOneQuarter() throws {
        let image = SyntheticImage.gradient(width: 320, height: 240)
        let baseline = try JPEGCodec.encode(image, quality: 90, progressive: false)
        #expect(try JPEGDecoder.structure(of: baseline).dcScaleStream(baseline) == nil)
        #expect(try JPEGDecoder.structure(of: baseline).quarterScaleStream(baseline) == nil)
        let progressive = try JPEGCodec.encode(image, quality: 90, progressive: true)
        // At 1/2 each block becomes 4x4 pixels from sixteen coefficients: the whole file is read.
        let half = DecodeScaleHint(minimumScale: 0.5)
        let cut = try JPEGDecoder.decode(progressive, limits: DecodeLimits(), scale: half, keepingCMYK: false)
        let reference = try JPEGDecoder.decode(progressive, limits: DecodeLimits(), scale: half, keepingCMYK: false, cuttingScans: false)
        #expect(cut.pixels.pixels == reference.pixels.pixels && cut.scaleX == 0.5)
    }
}
