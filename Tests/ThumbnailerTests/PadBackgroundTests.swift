import Foundation
import ImageCodecs
import ImageCore
import ImageOps
import ImageQuality
import Testing
import TestSupport
import ThumbVariant
import Thumbnailer

/// The pad backgrounds as a client sees them: `auto` takes the photo's edge colour, `blur` a
/// blurred copy of the photo, `transparent` keeps alpha, a colour is opaque.
struct PadBackgroundTests {
    static func render(_ image: PixelBuffer, _ format: EncodeSettings, width: Int, height: Int,
                       fit: Fit = .pad, background: PadBackground) throws -> RenderedThumbnail {
        try Thumbnailer.render(from: ImageCodecs.encode(image, format),
                               ThumbnailRequest(width: width, height: height, fit: fit, background: background))
    }

    /// Where the contain render of the same photo lands on the padded canvas.
    static func placement(of contained: PixelBuffer, width: Int, height: Int) -> PixelBox {
        PixelBox(x: (width - contained.width) / 2, y: (height - contained.height) / 2, width: contained.width, height: contained.height)
    }

    // MARK: auto

    /// A product on a light grey sweep (a JPEG, with its noise), padded into a taller box: the bands
    /// are the sweep's grey within 3 levels, although the product's stand covers a third of the
    /// bottom edge, and all of one colour.
    @Test("auto takes the sweep's colour", arguments: [(300, 400), (240, 320)])
    func autoMatchesTheSweep(_ box: (Int, Int)) throws {
        let (width, height) = box
        let photo = PadScenes.productOnSweep()
        let rendered = try Self.render(photo, .jpeg(quality: 88), width: width, height: height, background: .auto)
        let contained = try Self.render(photo, .jpeg(quality: 88), width: width, height: height, fit: .contain, background: .auto).pixels
        let placed = Self.placement(of: contained, width: width, height: height)
        try #require(placed.height < height, "the box must leave bands above and below the photo")
        let bands = PadPixels.outside(placed, of: rendered.pixels)
        let first = try #require(bands.first)
        #expect(bands.allSatisfy { $0 == first }, "the bands are not one colour")
        for value in [first.r, first.g, first.b] {
            #expect(abs(Int(value) - Int(PadScenes.sweep.red)) <= 3, "band \(first), sweep \(PadScenes.sweep)")
        }
        #expect(first.a == 255)
    }

    /// A bright subject on a night background, padded into a wider box: the bands are the night's
    /// colour (within 4 levels), not white.
    @Test func autoOnADarkEdgeIsDark() throws {
        let photo = PadScenes.darkEdged()
        let (width, height) = (400, 300)
        let rendered = try Self.render(photo, .jpeg(quality: 88), width: width, height: height, background: .auto)
        let contained = try Self.render(photo, .jpeg(quality: 88), width: width, height: height, fit: .contain, background: .auto).pixels
        let placed = Self.placement(of: contained, width: width, height: height)
        try #require(placed.width < width, "the box must leave bands beside the photo")
        let band = try #require(PadPixels.outside(placed, of: rendered.pixels).first)
        let night = PadScenes.night
        #expect(abs(Int(band.r) - Int(night.red)) <= 4 && abs(Int(band.g) - Int(night.green)) <= 4
                && abs(Int(band.b) - Int(night.blue)) <= 4, "band \(band), night \(night)")
        // The photo itself is untouched by the choice of band: it is the contain render.
        #expect(PadPixels.differingPixels(rendered.pixels.part(placed), contained) == 0)
    }

    /// A cut-out product on a transparent background has no edge colour to read: the bands are
    /// white and the thumbnail is opaque (the ring is laid over the band colour).
    @Test func autoOnATransparentEdgeIsWhiteAndOpaque() throws {
        let rendered = try Self.render(PadScenes.cutOut(), .png, width: 300, height: 400, background: .auto)
        let pixels = rendered.pixels
        #expect(pixels.pixel(x: 0, y: 0) == (255, 255, 255, 255))
        #expect(stride(from: 3, to: pixels.pixels.count, by: 4).allSatisfy { pixels.pixels[$0] == 255 }, "a pixel is not opaque")
    }

    // MARK: blur

    /// Sky over sand padded into a taller box: the bands are opaque and not flat, the band above
    /// the photo is sky-coloured and the one below sand-coloured (each within 20 levels of the
    /// photo's strip beside it), and the photo between them is exactly the contain render.
    @Test("blur shows the photo's own colours", arguments: [(300, 400), (240, 320)])
    func blurFollowsThePhoto(_ box: (Int, Int)) throws {
        let (width, height) = box
        let photo = PadScenes.skyAndSand()
        let rendered = try Self.render(photo, .jpeg(quality: 90), width: width, height: height, background: .blur).pixels
        let contained = try Self.render(photo, .jpeg(quality: 90), width: width, height: height, fit: .contain, background: .blur).pixels
        let placed = Self.placement(of: contained, width: width, height: height)
        try #require(placed.y >= 8 && height - placed.y - placed.height >= 8, "the box must leave bands above and below the photo")
        #expect(rendered.width == width && rendered.height == height)

        let bands = PadPixels.outside(placed, of: rendered)
        #expect(bands.allSatisfy { $0.a == 255 }, "a band pixel is not opaque")
        #expect(PadPixels.lumaVariance(bands) > 1, "the bands are one flat colour")

        let strip = 8
        let above = PadPixels.meanColour(rendered, PixelBox(x: 0, y: placed.y - strip, width: width, height: strip))
        let photoTop = PadPixels.meanColour(rendered, PixelBox(x: 0, y: placed.y, width: width, height: placed.height / 4))
        let below = PadPixels.meanColour(rendered, PixelBox(x: 0, y: placed.y + placed.height, width: width, height: strip))
        let photoBottom = PadPixels.meanColour(rendered, PixelBox(x: 0, y: placed.y + placed.height * 3 / 4, width: width, height: placed.height / 4))
        #expect(PadPixels.distance(above, photoTop) <= 20, "band above \(above), photo's top \(photoTop)")
        #expect(PadPixels.distance(below, photoBottom) <= 20, "band below \(below), photo's bottom \(photoBottom)")

        #expect(PadPixels.differingPixels(rendered.part(placed), contained) == 0, "the photo on the blurred bands is not the contain render")
    }

    /// The same on real photos: opaque bands that are not flat, whose colour near the photo is that
    /// of the photo's strip beside it (within 40 levels: a photo's edge is not one colour), and the
    /// photo is the contain render.
    @Test(.requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)),
          arguments: ["mate_Garden.jpg", "lomiri_Wine_by_Jakkub_Mede.jpg", "plasma_Kite_2560x1600.jpg"])
    func blurOnPhotos(_ name: String) throws {
        let data = try TestPaths.bytes(try #require(TestPaths.corpus("photos/" + name)))
        for (width, height) in [(300, 400), (400, 300)] {
            let rendered = try Thumbnailer.render(from: data, ThumbnailRequest(width: width, height: height, fit: .pad, background: .blur)).pixels
            let contained = try Thumbnailer.render(from: data, ThumbnailRequest(width: width, height: height, fit: .contain)).pixels
            let placed = Self.placement(of: contained, width: width, height: height)
            guard placed.width < width || placed.height < height else { continue }
            let bands = PadPixels.outside(placed, of: rendered)
            #expect(bands.allSatisfy { $0.a == 255 }, "\(name) \(width)x\(height): a band pixel is not opaque")
            #expect(PadPixels.lumaVariance(bands) > 1, "\(name) \(width)x\(height): the bands are one flat colour")
            #expect(PadPixels.differingPixels(rendered.part(placed), contained) == 0, "\(name) \(width)x\(height): the photo is not the contain render")
            for (band, beside) in Self.bandsAndStrips(placed, width: width, height: height) {
                let bandColour = PadPixels.meanColour(rendered, band), photoColour = PadPixels.meanColour(rendered, beside)
                #expect(PadPixels.distance(bandColour, photoColour) <= 40,
                        "\(name) \(width)x\(height): band \(bandColour) next to the photo's \(photoColour)")
            }
        }
    }

    /// Each band's 8 pixels nearest the photo, with the photo's quarter beside it.
    static func bandsAndStrips(_ placed: PixelBox, width: Int, height: Int) -> [(PixelBox, PixelBox)] {
        let strip = 8
        var pairs: [(PixelBox, PixelBox)] = []
        if placed.y >= strip {
            pairs.append((PixelBox(x: 0, y: placed.y - strip, width: width, height: strip),
                          PixelBox(x: placed.x, y: placed.y, width: placed.width, height: placed.height / 4)))
            pairs.append((PixelBox(x: 0, y: placed.y + placed.height, width: width, height: strip),
                          PixelBox(x: placed.x, y: placed.y + placed.height * 3 / 4, width: placed.width, height: placed.height / 4)))
        }
        if placed.x >= strip {
            pairs.append((PixelBox(x: placed.x - strip, y: 0, width: strip, height: height),
                          PixelBox(x: placed.x, y: placed.y, width: placed.width / 4, height: placed.height)))
            pairs.append((PixelBox(x: placed.x + placed.width, y: 0, width: strip, height: height),
                          PixelBox(x: placed.x + placed.width * 3 / 4, y: placed.y, width: placed.width / 4, height: placed.height)))
        }
        return pairs
    }

    /// A cut-out with blurred bands is opaque everywhere: no band pixel and no pixel of the photo is
    /// transparent, and where the photo is opaque it is the contain render's pixel.
    @Test func blurOfATransparentPhotoIsOpaque() throws {
        let photo = PadScenes.cutOut()
        let rendered = try Self.render(photo, .png, width: 300, height: 400, background: .blur).pixels
        let contained = try Self.render(photo, .png, width: 300, height: 400, fit: .contain, background: .blur).pixels
        #expect(!rendered.hasAlpha)
        #expect(stride(from: 3, to: rendered.pixels.count, by: 4).allSatisfy { rendered.pixels[$0] == 255 }, "a pixel is not opaque")
        let placed = Self.placement(of: contained, width: 300, height: 400)
        let part = rendered.part(placed)
        for y in 0..<contained.height {
            for x in 0..<contained.width where contained.pixel(x: x, y: y).a == 255 {
                let ours = part.pixel(x: x, y: y), theirs = contained.pixel(x: x, y: y)
                #expect(ours == theirs, "(\(x), \(y)): \(ours), the opaque photo pixel is \(theirs)")
                if ours != theirs { return }
            }
        }
    }

    // MARK: transparent and colour

    /// Transparent bands stay transparent and the photo keeps its own alpha (the contain render
    /// exactly); a colour flattens the photo onto itself, so every pixel is opaque, and the encoded
    /// thumbnail is a PNG in the first case and a JPEG in the second.
    @Test func transparentKeepsAlphaAndColourIsOpaque() throws {
        let data = try ImageCodecs.encode(PadScenes.cutOut(), .png)
        let (width, height) = (300, 400)
        let transparent = try Thumbnailer.render(from: data, ThumbnailRequest(width: width, height: height, fit: .pad, background: .transparent)).pixels
        let contained = try Thumbnailer.render(from: data, ThumbnailRequest(width: width, height: height, fit: .contain)).pixels
        let placed = Self.placement(of: contained, width: width, height: height)
        try #require(placed.height < height)
        #expect(transparent.hasAlpha)
        #expect(PadPixels.outside(placed, of: transparent).allSatisfy { $0.a == 0 }, "a band pixel is not transparent")
        #expect(PadPixels.differingPixels(transparent.part(placed), contained) == 0, "the photo's pixels (alpha too) are not the contain render's")
        let alphas = Set(stride(from: 3, to: contained.pixels.count, by: 4).map { contained.pixels[$0] })
        #expect(alphas.contains(0) && alphas.contains(255) && alphas.contains { $0 > 100 && $0 < 160 }, "the photo must have every kind of alpha")

        let coloured = try Thumbnailer.render(from: data, ThumbnailRequest(width: width, height: height, fit: .pad,
                                                                          background: .color(red: 200, green: 10, blue: 10))).pixels
        #expect(!coloured.hasAlpha)
        #expect(stride(from: 3, to: coloured.pixels.count, by: 4).allSatisfy { coloured.pixels[$0] == 255 }, "a pixel is not opaque")
        #expect(PadPixels.outside(placed, of: coloured).allSatisfy { PadPixels.equals($0, (200, 10, 10)) })

        #expect(try ThumbnailMaker().make(data, as: Variant(width: width, height: height, fit: .pad, background: .transparent)).format == .png)
        #expect(try ThumbnailMaker().make(data, as: Variant(width: width, height: height, fit: .pad, background: .white)).format == .jpeg)
    }
}
