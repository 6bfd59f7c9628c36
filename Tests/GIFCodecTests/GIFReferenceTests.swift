import Foundation
import GIFCodec
import ImageCore
import Testing
import TestSupport

/// Every committed GIF decoded by GIFCodec and by Pillow (`Image.open(f).convert('RGBA')`, its first
/// frame): equal pixel for pixel, except where Pillow is known to differ from browsers.
///
/// Transparent pixels are compared by their alpha alone: GIFCodec leaves them transparent black,
/// Pillow keeps the colour table entry of the transparent index under alpha 0; both are invisible.
@Suite("GIF against Pillow", .requires(Pillow.available, Comment(rawValue: Pillow.missing)))
struct GIFReferenceTests {
    static let references: [String: Result<PixelBuffer, Pillow.Failure>] = {
        let urls = GIFTestFiles.all.map(GIFTestFiles.url)
        let decoded = (try? Pillow.decode(urls)) ?? [:]
        return Dictionary(uniqueKeysWithValues: decoded.map { ($0.key.lastPathComponent, $0.value) })
    }()

    static func reference(_ name: String) throws -> PixelBuffer {
        try #require(references[name], "Pillow gave nothing for \(name)").get()
    }

    static func decode(_ name: String) throws -> DecodedImage {
        try GIFCodec.decode(try GIFTestFiles.bytes(name), limits: DecodeLimits(), scale: .fullSize)
    }

    /// The file's name, and whether it is animated.
    static let exact: [(String, Bool)] = [
        ("still.gif", false), ("interlaced.gif", false), ("transparent.gif", false), ("animated.gif", true),
        ("local_color_table.gif", false), ("offset_transparent.gif", false), ("frame_past_screen.gif", false),
        ("interlaced_local_offset_animated.gif", true), ("index_past_table.gif", false), ("zero_screen.gif", false),
    ]

    @Test("the first frame on its canvas, exactly as Pillow composes it", arguments: exact)
    func matchesPillow(_ name: String, _ animated: Bool) throws {
        let data = try GIFTestFiles.bytes(name)
        let ours = try GIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let expected = try Self.reference(name)
        #expect(differences(transparentAsClear(ours.pixels), transparentAsClear(expected)).isEmpty,
                "\(name): \(differences(transparentAsClear(ours.pixels), transparentAsClear(expected)))")
        #expect(ours.pixels.hasAlpha == expected.hasAlpha, "\(name)")
        #expect(ours.info.isAnimated == animated && ours.info.format == .gif && ours.info.orientation == .up)
        #expect(ours.color == .unspecified && ours.samples == .rgba)
        let info = try GIFCodec.readInfo(data, limits: DecodeLimits())
        #expect(info.width == expected.width && info.height == expected.height && info.isAnimated == animated, "\(name): \(info)")
        // readInfo may say alpha where the pixels turn out opaque (an unused transparent index), never the reverse.
        #expect(info.hasAlpha || !ours.pixels.hasAlpha, "\(name)")
    }

    @Test("every committed file is covered")
    func everyFileCovered() {
        let covered = Set(Self.exact.map(\.0) + ["offset_opaque.gif", "no_color_table.gif"])
        #expect(covered == Set(GIFTestFiles.all), "uncovered: \(Set(GIFTestFiles.all).subtracting(covered).sorted())")
    }

    @Test("a frame smaller than its screen, without a transparent index: the uncovered screen is transparent (Pillow paints it with index 0)")
    func uncoveredScreenIsTransparent() throws {
        let ours = try Self.decode("offset_opaque.gif")
        let pillow = try Self.reference("offset_opaque.gif")
        #expect(ours.pixels.width == 40 && ours.pixels.height == 30 && ours.pixels.hasAlpha && ours.info.hasAlpha)
        // The frame: 16x10 at (7, 5).
        for y in 0..<30 {
            for x in 0..<40 {
                let inside = (7..<23).contains(x) && (5..<15).contains(y)
                let expected = inside ? pillow.pixel(x: x, y: y) : (0, 0, 0, 0)
                if ours.pixels.pixel(x: x, y: y) != expected {
                    Issue.record("(\(x), \(y)): \(ours.pixels.pixel(x: x, y: y)), expected \(expected)")
                }
            }
        }
        #expect(pillow.pixel(x: 0, y: 0).a == 255, "Pillow now leaves the screen transparent: compare with it")
    }

    @Test("neither a global nor a local colour table is corrupt (Pillow reads the indices as grey)")
    func noColorTable() throws {
        let data = try GIFTestFiles.bytes("no_color_table.gif")
        let error = refusal { () throws(ImageError) in try GIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .corruptImage && error?.message.contains("colour table") == true, "\(String(describing: error))")
        #expect(refusal { () throws(ImageError) in try GIFCodec.readInfo(data, limits: DecodeLimits()) }?.code == .corruptImage)
        _ = try Self.reference("no_color_table.gif")
    }

    @Test("the canvas grows to hold a frame past the screen, and a 0x0 screen takes the frame's size")
    func canvasSizes() throws {
        let past = try Self.decode("frame_past_screen.gif")
        #expect(past.pixels.width == 26 && past.pixels.height == 16)
        #expect(past.pixels.pixel(x: 25, y: 15).a == 255 && past.pixels.pixel(x: 0, y: 0) == (0, 0, 0, 0))
        let zero = try Self.decode("zero_screen.gif")
        #expect(zero.pixels.width == 12 && zero.pixels.height == 9 && !zero.pixels.hasAlpha)
    }

    @Test("the local colour table wins over the global one; indices past the table read opaque black")
    func colorTables() throws {
        let local = try Self.decode("local_color_table.gif")
        // Index 0 of the local table is entry 0 of the script's palette (0, 255, 0); the global one is white.
        #expect(local.pixels.pixel(x: 0, y: 0) == (0, 255, 0, 255))
        let past = try Self.decode("index_past_table.gif")
        // Row 0 holds indices 0 0 1 1 2 2 3 3 4 4 ...: 4 and up lie past the 4-entry table.
        #expect(past.pixels.pixel(x: 8, y: 0) == (0, 0, 0, 255))
        #expect(past.pixels.pixel(x: 2, y: 0) == (20, 235, 37, 255))
    }
}

/// Transparent pixels as (0, 0, 0, 0), whatever colour they hide.
func transparentAsClear(_ image: PixelBuffer) -> PixelBuffer {
    var out = image
    for i in stride(from: 0, to: out.pixels.count, by: 4) where out.pixels[i + 3] == 0 {
        out.pixels[i] = 0
        out.pixels[i + 1] = 0
        out.pixels[i + 2] = 0
    }
    return out
}
