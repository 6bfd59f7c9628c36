import ImageCore
import JPEGCodec
import Testing
import TestSupport

/// Tests that make their own JPEGs, so they run anywhere.
struct JPEGCodecTests {
    static let photo = SyntheticImage.gradient(width: 301, height: 203)

    @Test func roundTripIsClose() throws {
        let encoded = try JPEGCodec.encode(Self.photo, quality: 95, progressive: false)
        let decoded = try JPEGCodec.decode(encoded, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.pixels.width == 301 && decoded.pixels.height == 203)
        #expect(Signature.maxDifference(Signature.of(decoded.pixels), Signature.of(Self.photo)) <= 3)
    }

    @Test func progressiveOutputIsProgressiveAndCarriesNoMetadata() throws {
        let encoded = try JPEGCodec.encode(Self.photo, quality: 80, progressive: true)
        let markers = Self.markers(encoded)
        #expect(markers.contains(0xC2), "no SOF2 (progressive) marker")
        #expect(!markers.contains(0xE1), "EXIF/XMP (APP1) must not be written")
        let baseline = Self.markers(try JPEGCodec.encode(Self.photo, quality: 80, progressive: false))
        #expect(baseline.contains(0xC0) && !baseline.contains(0xC2))
    }

    @Test("scaled decode is the smallest of 1/8, 1/4, 1/2 and 1 at or above the hint", arguments: [
        (0.125, 38, 26), (0.2, 76, 51), (0.25, 76, 51), (0.26, 151, 102), (0.5, 151, 102), (0.51, 301, 203), (0.9, 301, 203), (1.0, 301, 203),
    ])
    func scaledDecode(_ scale: Double, _ width: Int, _ height: Int) throws {
        let encoded = try JPEGCodec.encode(Self.photo, quality: 90, progressive: false)
        let decoded = try JPEGCodec.decode(encoded, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: scale))
        #expect(decoded.pixels.width == width && decoded.pixels.height == height)
        #expect(Double(decoded.pixels.width) >= scale * 301 && Double(decoded.pixels.height) >= scale * 203)
    }

    @Test("a cut file is refused, never padded", arguments: [0.05, 0.3, 0.6, 0.95, 0.999])
    func truncated(_ fraction: Double) throws {
        let encoded = try JPEGCodec.encode(Self.photo, quality: 90, progressive: fraction > 0.5)
        let cut = Array(encoded.prefix(Int(Double(encoded.count) * fraction)))
        do {
            _ = try JPEGCodec.decode(cut, limits: DecodeLimits(), scale: .fullSize)
            Issue.record("a JPEG cut at \(fraction) decoded")
        } catch {
            #expect(error.code == .truncatedImage || error.code == .corruptImage)
        }
    }

    @Test func missingOnlyTheEndMarkerIsTruncated() throws {
        let encoded = try JPEGCodec.encode(Self.photo, quality: 90, progressive: false)
        #expect(throws: ImageError.self) {
            try JPEGCodec.decode(Array(encoded.dropLast(2)), limits: DecodeLimits(), scale: .fullSize)
        }
    }

    /// A 30000 x 30000 frame header with no data: refused from the header, before any allocation.
    @Test func hugeHeaderIsRefusedByThePixelLimit() throws {
        var encoded = try JPEGCodec.encode(SyntheticImage.gradient(width: 16, height: 16), quality: 90, progressive: false)
        let sof = try #require(Self.offset(of: 0xC0, in: encoded))
        encoded[sof + 5] = UInt8(30000 >> 8); encoded[sof + 6] = UInt8(30000 & 0xFF)
        encoded[sof + 7] = UInt8(30000 >> 8); encoded[sof + 8] = UInt8(30000 & 0xFF)
        #expect(throws: ImageError.self) { try JPEGCodec.decode(encoded, limits: DecodeLimits(), scale: .fullSize) }
        do {
            _ = try JPEGCodec.decode(encoded, limits: DecodeLimits(), scale: .fullSize)
        } catch {
            #expect(error.code == .pixelLimitExceeded)
        }
    }

    /// `FF 00` between segments is garbage libjpeg skips; read as a marker with a length it would
    /// hide the comment behind it, and removing metadata would leave that comment in.
    @Test func stuffedZeroBetweenSegmentsIsSkippedLikeLibjpeg() throws {
        let encoded = try JPEGCodec.encode(Self.photo, quality: 80, progressive: false)
        let sos = try #require(Self.offset(of: 0xDA, in: encoded))
        let comment: [UInt8] = [0xFF, 0xFE, 0x00, 0x07] + Array("hello".utf8)
        // The two bytes after FF 00 would give it a length of 4 + 9: just over the comment.
        let garbage: [UInt8] = [0xFF, 0x00, 0x00, UInt8(4 + comment.count)]
        let file = Array(encoded[..<sos]) + garbage + comment + Array(encoded[sos...])
        #expect(try JPEGCodec.metadata(in: file).contains(.comment))
        let stripped = try JPEGCodec.removingMetadata(file)
        #expect(try JPEGCodec.metadata(in: stripped).isEmpty)
        let decoded = try JPEGCodec.decode(stripped, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.pixels.width == 301 && decoded.pixels.height == 203)
    }

    @Test func qualityOutOfRangeIsRefused() {
        #expect(throws: ImageError.self) { try JPEGCodec.encode(Self.photo, quality: 0, progressive: false) }
    }

    static func markers(_ data: [UInt8]) -> Set<UInt8> {
        var found = Set<UInt8>()
        var i = 2
        while i + 4 <= data.count, data[i] == 0xFF {
            let marker = data[i + 1]
            found.insert(marker)
            if marker == 0xDA { break }
            i += 2 + (Int(data[i + 2]) << 8 | Int(data[i + 3]))
        }
        return found
    }

    static func offset(of marker: UInt8, in data: [UInt8]) -> Int? {
        (0..<(data.count - 1)).first { data[$0] == 0xFF && data[$0 + 1] == marker }
    }
}
