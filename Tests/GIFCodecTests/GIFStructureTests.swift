import ChildProcess
import Foundation
import GIFCodec
import ImageCore
import Testing
import TestSupport

/// Limits, giflib's errors as codes, and what is read of an animation (its first frame only).
@Suite("GIF structure and limits")
struct GIFStructureTests {
    static let grey: [(UInt8, UInt8, UInt8)] = [(0, 0, 0), (85, 85, 85), (170, 170, 170), (255, 255, 255)]

    static func decodeError(_ data: [UInt8], limits: DecodeLimits = DecodeLimits()) -> ImageError? {
        refusal { () throws(ImageError) in try GIFCodec.decode(data, limits: limits, scale: .fullSize) }
    }

    static func infoError(_ data: [UInt8], limits: DecodeLimits = DecodeLimits()) -> ImageError? {
        refusal { () throws(ImageError) in try GIFCodec.readInfo(data, limits: limits) }
    }

    /// A w x h frame of indices (x + y) % 4 on a screen of the same size, grey palette.
    static func still(width: Int, height: Int, screen: (Int, Int)? = nil) -> [UInt8] {
        let indices = (0..<height).flatMap { y in (0..<width).map { x in UInt8((x + y) % 4) } }
        return GIFBuilder.header(width: screen?.0 ?? width, height: screen?.1 ?? height, globalColors: grey)
            + GIFBuilder.frame(width: width, height: height, lzw: GIFBuilder.lzw(indices)) + GIFBuilder.trailer
    }

    @Test("a GIF assembled here decodes: indices through the global table, opaque, not animated")
    func assembled() throws {
        let image = try GIFCodec.decode(Self.still(width: 7, height: 5), limits: DecodeLimits(), scale: .fullSize)
        #expect(image.pixels.width == 7 && image.pixels.height == 5 && !image.pixels.hasAlpha && !image.info.isAnimated)
        #expect(image.pixels.pixel(x: 3, y: 2) == (85, 85, 85, 255))  // (3 + 2) % 4 = 1
        #expect(image.pixels.pixel(x: 1, y: 2) == (255, 255, 255, 255))  // (1 + 2) % 4 = 3
        #expect(image.pixels.pixel(x: 0, y: 0) == (0, 0, 0, 255))
    }

    @Test("a logical screen of 65535 x 65535 (GIF's largest; 100000 does not fit its 16 bits) is refused from its first 13 bytes")
    func hugeScreen() {
        let data = GIFBuilder.header(width: 65535, height: 65535)
        #expect(data.count == 13)
        // Were giflib or the frame asked first, this 13-byte file would be truncated_image.
        #expect(Self.decodeError(data)?.code == .pixelLimitExceeded)
        #expect(Self.infoError(data)?.code == .pixelLimitExceeded)
        #expect(Self.decodeError(data + [0x2C])?.code == .pixelLimitExceeded)
    }

    @Test("a frame over the limit, or one whose offset grows the canvas over it, is refused before any pixel memory")
    func hugeFrames() {
        let lzw = GIFBuilder.lzw([0, 1, 2, 3])
        let bigFrame = GIFBuilder.header(width: 10, height: 10, globalColors: Self.grey)
            + GIFBuilder.frame(width: 65535, height: 65535, lzw: lzw) + GIFBuilder.trailer
        #expect(Self.decodeError(bigFrame)?.code == .pixelLimitExceeded)
        #expect(Self.infoError(bigFrame)?.code == .pixelLimitExceeded)
        let farFrame = GIFBuilder.header(width: 10, height: 10, globalColors: Self.grey)
            + GIFBuilder.frame(left: 65000, top: 65000, width: 2, height: 2, lzw: lzw) + GIFBuilder.trailer
        let error = Self.decodeError(farFrame)
        #expect(error?.code == .pixelLimitExceeded && error?.message.contains("65002x65002") == true, "\(String(describing: error))")
    }

    @Test("a large frame with too little LZW data to hold it is truncated, before its canvas is allocated")
    func tooLittleData() {
        // 4000 x 4000 = 16 MP: a code yields at most 4095 pixels, so at least ~5,900 bytes are needed.
        let data = GIFBuilder.header(width: 4000, height: 4000, globalColors: Self.grey)
            + GIFBuilder.frame(width: 4000, height: 4000, lzw: GIFBuilder.lzw([0, 1, 2, 3])) + GIFBuilder.trailer
        let error = Self.decodeError(data)
        #expect(error?.code == .truncatedImage && error?.message.contains("needs at least") == true, "\(String(describing: error))")
    }

    @Test("DecodeLimits' pixels and decode bytes")
    func limits() throws {
        let data = Self.still(width: 40, height: 30)
        _ = try GIFCodec.decode(data, limits: DecodeLimits(maxPixels: 1200), scale: .fullSize)
        #expect(Self.decodeError(data, limits: DecodeLimits(maxPixels: 1199))?.code == .pixelLimitExceeded)
        #expect(Self.decodeError(data, limits: DecodeLimits(maxDecodeBytes: 40 * 30 * 4))?.code == .pixelLimitExceeded)
        let image = try GIFCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.1))
        #expect(image.pixels.width == 40 && image.scaleX == 1)
    }

    @Test("only the first frame is decoded: a huge, damaged second frame changes nothing but isAnimated")
    func secondFrameNeverDecoded() throws {
        let first = Self.still(width: 8, height: 8).dropLast()  // no trailer
        let second = GIFBuilder.graphicsControl() + GIFBuilder.frame(width: 65535, height: 65535, lzw: [8, 255] + [UInt8](repeating: 0xAB, count: 255) + [0])
        let data = Array(first) + second + GIFBuilder.trailer
        let image = try GIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let alone = try GIFCodec.decode(Self.still(width: 8, height: 8), limits: DecodeLimits(), scale: .fullSize)
        #expect(image.pixels == alone.pixels && image.info.isAnimated && !alone.info.isAnimated)
        #expect(try GIFCodec.readInfo(data, limits: DecodeLimits()).isAnimated)
    }

    @Test("5,000 frames: the first is decoded in a moment, the others never read")
    func manyFrames() throws {
        let frame = GIFBuilder.graphicsControl() + GIFBuilder.frame(width: 64, height: 64, lzw: GIFBuilder.lzw([UInt8](repeating: 2, count: 64 * 64)))
        var data = GIFBuilder.header(width: 64, height: 64, globalColors: Self.grey)
        for _ in 0..<5000 { data += frame }
        data += GIFBuilder.trailer
        let clock = ThreadCPUClock()
        let started = clock.now
        let image = try GIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let elapsed = clock.now - started
        #expect(image.info.isAnimated && image.pixels.pixel(x: 5, y: 5) == (170, 170, 170, 255))
        #expect(elapsed < .milliseconds(200), "\(elapsed) for a \(data.count)-byte animation")
    }

    @Test("giflib's failures as codes: bad code size and LZW codes are corrupt, an early end code is truncated")
    func lzwErrors() {
        let header = GIFBuilder.header(width: 8, height: 2, globalColors: Self.grey)
        let pixels = [UInt8](repeating: 1, count: 16)
        let cases: [([UInt8], ImageError.Code, String)] = [
            ([12] + GIFBuilder.subBlocks([1, 2, 3]), .corruptImage, "code size 12"),
            ([2] + GIFBuilder.subBlocks([UInt8](repeating: 0xFF, count: 40)), .corruptImage, "codes past the table"),
            (GIFBuilder.lzw(Array(pixels.prefix(10))), .truncatedImage, "an end code after 10 of 16 pixels"),
            ([2, 0], .corruptImage, "no data blocks at all"),
        ]
        for (lzw, code, what) in cases {
            let data = header + GIFBuilder.frame(width: 8, height: 2, lzw: lzw) + GIFBuilder.trailer
            let error = Self.decodeError(data)
            #expect(error?.code == code, "\(what): \(String(describing: error))")
        }
        _ = Self.decodeError(header + GIFBuilder.frame(width: 8, height: 2, lzw: GIFBuilder.lzw(pixels)) + GIFBuilder.trailer)
            .map { Issue.record("the valid variant failed: \($0)") }
    }

    @Test("records: a trailer or an unknown byte before any image is corrupt; a missing trailer is fine; an empty frame is corrupt")
    func records() throws {
        let header = GIFBuilder.header(width: 4, height: 4, globalColors: Self.grey)
        #expect(Self.decodeError(header + GIFBuilder.trailer)?.code == .corruptImage)
        #expect(Self.decodeError(header + [0x99, 0, 0])?.code == .corruptImage)
        let noTrailer = Array(Self.still(width: 4, height: 4).dropLast())
        #expect(try GIFCodec.decode(noTrailer, limits: DecodeLimits(), scale: .fullSize).pixels.width == 4)
        let empty = header + GIFBuilder.frame(width: 0, height: 4, lzw: GIFBuilder.lzw([])) + GIFBuilder.trailer
        #expect(Self.decodeError(empty)?.code == .corruptImage)
        // GIF87a is read as well.
        var old = Self.still(width: 4, height: 4)
        old.replaceSubrange(0..<6, with: Array("GIF87a".utf8))
        #expect(try GIFCodec.decode(old, limits: DecodeLimits(), scale: .fullSize).pixels.height == 4)
    }

    @Test("signatures: not a GIF is corrupt, a cut signature or screen descriptor truncated")
    func signatures() {
        #expect(Self.decodeError([])?.code == .corruptImage)
        #expect(Self.decodeError(Array("GIF8".utf8))?.code == .truncatedImage)
        #expect(Self.decodeError(Array("GIF89a".utf8) + [1, 0, 1])?.code == .truncatedImage)
        #expect(Self.decodeError(Array("GIF90a".utf8) + [UInt8](repeating: 0, count: 20))?.code == .corruptImage)
        #expect(Self.decodeError(Array("BM".utf8) + [UInt8](repeating: 0, count: 60))?.code == .corruptImage)
        #expect(GIFCodec.sniff(Self.still(width: 1, height: 1)) && !GIFCodec.sniff(Array("GIF8".utf8)))
        #expect(GIFCodec.imageFormat == .gif)
    }

    @Test("colour is always unspecified, an ICCRGBG1 application extension ignored; not a GIF is refused")
    func color() throws {
        let profile = [UInt8](repeating: 7, count: 300)
        let icc: [UInt8] = [0x21, 0xFF, 11] + Array("ICCRGBG1012".utf8) + GIFBuilder.subBlocks(profile)
        let still = Self.still(width: 4, height: 4)
        let data = Array(still.prefix(13 + 12)) + icc + Array(still.dropFirst(13 + 12))
        #expect(try GIFCodec.embeddedColor(in: data) == .unspecified)
        #expect(try GIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize).pixels == GIFCodec.decode(still, limits: DecodeLimits(), scale: .fullSize).pixels)
        #expect(refusal { () throws(ImageError) in try GIFCodec.embeddedColor(in: Array("BM".utf8)) }?.code == .corruptImage)
    }

    @Test("libraryVersion is giflib's (as pkg-config reports the installed one)")
    func version() throws {
        #expect(GIFCodec.libraryVersion.split(separator: ".").count == 3 && GIFCodec.libraryVersion.hasPrefix("5."))
        guard let result = try? ChildProcess.run("/usr/bin/env", ["pkg-config", "--modversion", "libgif"], timeoutSeconds: 60) else { return }
        if result.status == 0 {
            #expect(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == GIFCodec.libraryVersion)
        }
    }
}
