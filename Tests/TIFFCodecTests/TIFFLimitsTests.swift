import Foundation
import ImageCore
import Testing
import TIFFCodec

/// Sizes are refused from the directory, before any pixel memory exists.
@Suite("TIFF limits")
struct TIFFLimitsTests {
    @Test("a directory claiming 100000 x 100000 pixels is refused at once, without a big allocation")
    func hugeDirectory() throws {
        let data = HandTIFF.image(width: 100_000, height: 100_000).bytes
        let start = ContinuousClock.now
        let info = #expect(throws: ImageError.self) { _ = try TIFFCodec.readInfo(data, limits: DecodeLimits()) }
        let decode = #expect(throws: ImageError.self) { _ = try TIFFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        #expect(info?.code == .pixelLimitExceeded && decode?.code == .pixelLimitExceeded, "\(String(describing: decode))")
        // Refused by the directory's size (10^10 pixels would be 40 GB of RGBA), before any strip.
        #expect(decode?.message.contains("100000x100000") == true, "\(String(describing: decode))")
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test("the pixel limit and the decode-memory limit are both applied")
    func limits() throws {
        let data = try TIFFTestFiles.bytes("rgb8-lzw.tif")  // 45 x 31
        let pixels = #expect(throws: ImageError.self) { _ = try TIFFCodec.readInfo(data, limits: DecodeLimits(maxPixels: 45 * 31 - 1)) }
        #expect(pixels?.code == .pixelLimitExceeded)
        // The output alone is 45 * 31 * 4 = 5580 bytes.
        let memory = #expect(throws: ImageError.self) {
            _ = try TIFFCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: 5000), scale: .fullSize)
        }
        #expect(memory?.code == .pixelLimitExceeded, "\(String(describing: memory))")
        #expect(try TIFFCodec.decode(data, limits: DecodeLimits(maxPixels: 45 * 31, maxDecodeBytes: 1 << 20), scale: .fullSize).pixels.width == 45)
    }

    @Test("a strip over the decode-memory limit is refused before it is read")
    func hugeStrip() throws {
        // 40 megapixels (under the pixel limit) of 16-bit RGBA in one strip: 320 MB.
        let data = HandTIFF.image(width: 20_000, height: 2_000, samples: 4, bits: 16).bytes
        let start = ContinuousClock.now
        let error = #expect(throws: ImageError.self) {
            _ = try TIFFCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: 100 << 20), scale: .fullSize)
        }
        #expect(error?.code == .pixelLimitExceeded, "\(String(describing: error))")
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    /// 147 MB of RGB claimed by 64 bytes of LZW: refused on the first strip, quickly, whether the
    /// image is one strip or many.
    @Test("a tiny file claiming a large image fails fast", arguments: [UInt32(7_000), 16])
    func tinyFileLargeClaim(rowsPerStrip: UInt32) throws {
        let data = HandTIFF.image(width: 7_000, height: 7_000, samples: 3, compression: 5, rowsPerStrip: rowsPerStrip).bytes
        let start = ContinuousClock.now
        let error = #expect(throws: ImageError.self) { _ = try TIFFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        let time = ContinuousClock.now - start
        #expect(error?.code == .corruptImage, "\(String(describing: error))")
        print("TIFF 7000x7000 claimed by \(data.count) bytes, \(rowsPerStrip) rows a strip: \(time), \(String(describing: error))")
        #expect(time < .seconds(1))
    }

    @Test("absurd tiles are refused", arguments: [(UInt32(65536), UInt32(16)), (16, 65536), (1 << 20, 1 << 20)])
    func absurdTiles(_ tile: (UInt32, UInt32)) throws {
        let data = HandTIFF.image(width: 16, height: 16, samples: 3, tile: tile).bytes
        let start = ContinuousClock.now
        let error = #expect(throws: ImageError.self) { _ = try TIFFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .pixelLimitExceeded || error?.code == .corruptImage, "\(String(describing: error))")
        print("TIFF tile \(tile.0)x\(tile.1) for a 16x16 image: \(String(describing: error))")
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test("libtiff's own allocations are capped by maxDecodeBytes")
    func libtiffAllocationCap() throws {
        // The directory alone (its entries, the 588-byte profile) needs more than 256 bytes.
        let data = try TIFFTestFiles.bytes("rgb8-icc.tif")
        let error = #expect(throws: ImageError.self) { _ = try TIFFCodec.readInfo(data, limits: DecodeLimits(maxDecodeBytes: 256)) }
        #expect(error?.code == .pixelLimitExceeded, "\(String(describing: error))")
        print("TIFF with a 256-byte allocation cap: \(String(describing: error))")
    }

    @Test("the reduced-size hint is accepted and ignored: TIFF decodes at full size")
    func scaleIgnored() throws {
        let decoded = try TIFFCodec.decode(try TIFFTestFiles.bytes("tiled-rgb8.tif"), limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.25))
        #expect(decoded.pixels.width == 45 && decoded.scaleX == 1 && decoded.scaleY == 1)
    }
}
