@testable import AVIFCodec
import CAVIF
import ImageCore
import Testing

/// What AVIFCodec.encode never writes but strangers' files hold: other depths and chroma formats,
/// irot/imir, ICC profiles, sequences and grids (written here with libavif directly).
@Suite("AVIF features")
struct AVIFFeatureTests {
    static func decode(_ data: [UInt8]) throws -> DecodedImage {
        try AVIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
    }

    @Test("10- and 12-bit images decode to 8-bit RGBA", arguments: [UInt32(10), 12])
    func highBitDepth(depth: UInt32) throws {
        let source = Photo.make(width: 80, height: 60, seed: 41, alpha: true)
        var options = LibAVIF.Options()
        options.depth = depth
        options.format = AVIF_PIXEL_FORMAT_YUV444
        let decoded = try Self.decode(try LibAVIF.encodeStill(source, options))
        #expect(decoded.pixels.width == 80 && decoded.info.hasAlpha)
        let psnr = Quality.psnr(source.pixels, decoded.pixels.pixels, channels: [0, 1, 2, 3])
        #expect(psnr > 35, "PSNR \(psnr) dB")
    }

    @Test("4:2:2, 4:4:4 and monochrome decode", arguments: ["422", "444", "400"])
    func chromaFormats(name: String) throws {
        let source = Photo.make(width: 50, height: 30, seed: 42)
        var options = LibAVIF.Options()
        options.format = name == "422" ? AVIF_PIXEL_FORMAT_YUV422 : name == "444" ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV400
        let decoded = try Self.decode(try LibAVIF.encodeStill(source, options))
        #expect(decoded.pixels.width == 50 && decoded.pixels.height == 30)
        if name == "400" {
            let p = decoded.pixels.pixel(x: 20, y: 10)
            #expect(p.r == p.g && p.g == p.b)
        } else {
            #expect(Quality.psnr(source.pixels, decoded.pixels.pixels) > 30)
        }
    }

    /// libavif's own table from EXIF orientation to irot angle and imir mode (avifImageSetMetadataExif
    /// in src/exif.c), written out here rather than taken from AVIFOrientation.
    static let libavifTable: [(exif: UInt8, rotation: UInt8?, mirror: UInt8?)] = [
        (1, nil, nil), (2, nil, 1), (3, 2, nil), (4, nil, 0), (5, 1, 0), (6, 3, nil), (7, 3, 0), (8, 1, nil),
    ]

    @Test("irot/imir read as EXIF orientations (libavif's table)", arguments: libavifTable.map(\.exif))
    func orientationFromLibavif(exif: UInt8) throws {
        let row = try #require(Self.libavifTable.first { $0.exif == exif })
        var options = LibAVIF.Options()
        options.rotation = row.rotation
        options.mirror = row.mirror
        let data = try LibAVIF.encodeStill(Photo.make(width: 40, height: 24, seed: 43), options)
        let info = try AVIFCodec.readInfo(data, limits: DecodeLimits())
        #expect(info.orientation.rawValue == exif)
        // Pixels stay as stored: the stored size, not the upright one.
        let decoded = try Self.decode(data)
        #expect(decoded.pixels.width == 40 && decoded.pixels.height == 24 && decoded.info.orientation.rawValue == exif)
    }

    @Test("every combination of irot and imir is a composition of the two")
    func orientationCompositions() {
        // Applying rotation then mirror to a 3x2 image of distinct values, compared with what
        // ImageCore's orientation means (the transform that stands the stored image up).
        for rotation in [nil, 0, 1, 2, 3] as [UInt8?] {
            for mirror in [nil, 0, 1] as [UInt8?] {
                let orientation = AVIFOrientation.orientation(rotation: rotation, mirror: mirror)
                #expect(Grid.display(rotation: rotation, mirror: mirror) == Grid.upright(orientation),
                        "irot \(String(describing: rotation)) imir \(String(describing: mirror)) -> \(orientation)")
            }
        }
    }

    @Test("the encoder's irot/imir for each orientation read back as that orientation", arguments: Orientation.allCases)
    func orientationRoundTrip(orientation: Orientation) throws {
        let data = try AVIFEncoder.encode(Photo.make(width: 30, height: 20, seed: 44), quality: 82, speed: 10, orientation: orientation)
        #expect(try AVIFCodec.readInfo(data, limits: DecodeLimits()).orientation == orientation)
    }

    @Test("an image sequence yields its first frame and is marked animated")
    func sequence() throws {
        let frames = [Photo.solid(width: 64, height: 64, 200, 30, 30), Photo.solid(width: 64, height: 64, 30, 200, 30),
                      Photo.solid(width: 64, height: 64, 30, 30, 200)]
        let data = try LibAVIF.encodeSequence(frames)
        #expect(AVIFCodec.sniff(data))
        let info = try AVIFCodec.readInfo(data, limits: DecodeLimits())
        #expect(info.isAnimated && info.width == 64 && info.height == 64)
        let decoded = try Self.decode(data)
        #expect(decoded.info.isAnimated)
        let p = decoded.pixels.pixel(x: 32, y: 32)
        #expect(p.r > 180 && p.g < 60 && p.b < 60, "first frame is red: \(p)")
    }

    @Test("a one-frame sequence is not animated")
    func singleFrameSequence() throws {
        let data = try LibAVIF.encodeSequence([Photo.solid(width: 32, height: 32, 10, 20, 30)])
        #expect(!(try AVIFCodec.readInfo(data, limits: DecodeLimits()).isAnimated))
        #expect(try Self.decode(data).pixels.width == 32)
    }

    @Test("a grid image decodes to the whole canvas")
    func grid() throws {
        let cells = (0..<4).map { Photo.make(width: 64, height: 64, seed: 50 + UInt64($0)) }
        var options = LibAVIF.Options()
        options.format = AVIF_PIXEL_FORMAT_YUV444
        let data = try LibAVIF.encodeGrid(cells, columns: 2, rows: 2, options)
        let decoded = try Self.decode(data)
        #expect(decoded.pixels.width == 128 && decoded.pixels.height == 128)
        // The bottom-right cell is the fourth image.
        var cell = [UInt8]()
        for y in 64..<128 { cell += decoded.pixels.pixels[(y * 128 + 64) * 4..<(y * 128 + 128) * 4] }
        #expect(Quality.psnr(cells[3].pixels, cell) > 30)
    }

    @Test("the ICC profile comes out as stored; files without one give nil")
    func icc() throws {
        let profile: [UInt8] = Array("not really an ICC profile, but libavif stores what it is given".utf8) + (0..<200).map { UInt8($0) }
        var options = LibAVIF.Options()
        options.icc = profile
        let data = try LibAVIF.encodeStill(Photo.make(width: 16, height: 16), options)
        #expect(AVIFCodec.iccProfile(in: data) == profile)
        let decoded = try Self.decode(data)
        #expect(decoded.pixels.width == 16 && decoded.color == .iccProfile(profile))
        #expect(AVIFCodec.iccProfile(in: try AVIFCodec.encode(Photo.make(width: 16, height: 16), quality: 82, speed: 10)) == nil)
        #expect(AVIFCodec.iccProfile(in: Array("garbage".utf8)) == nil)
    }

    @Test("the encoder signals sRGB (nclx 1/13/6, full range) and writes no ICC profile or metadata")
    func encoderColour() throws {
        let data = try AVIFCodec.encode(Photo.make(width: 16, height: 16), quality: 82, speed: 10)
        let decoder = try #require(avifDecoderCreate())
        defer { avifDecoderDestroy(decoder) }
        let result = data.withUnsafeBufferPointer { buffer in
            _ = avifDecoderSetIOMemory(decoder, buffer.baseAddress, buffer.count)
            return avifDecoderParse(decoder)
        }
        #expect(result == AVIF_RESULT_OK)
        let image = try #require(decoder.pointee.image).pointee
        #expect(image.colorPrimaries == 1 && image.transferCharacteristics == 13 && image.matrixCoefficients == 6)
        #expect(image.yuvRange == AVIF_RANGE_FULL && image.yuvFormat == AVIF_PIXEL_FORMAT_YUV420)
        #expect(image.icc.size == 0 && image.exif.size == 0 && image.xmp.size == 0)
        #expect(try Self.decode(data).color == .sRGB)
    }

    @Test("CICP other than sRGB, or unspecified, is reported as unspecified")
    func cicpColour() throws {
        // libavif's avifImageCreate leaves primaries and transfer unspecified (2/2).
        #expect(try Self.decode(try LibAVIF.encodeStill(Photo.make(width: 16, height: 16))).color == .unspecified)
        var options = LibAVIF.Options()
        options.cicp = (12, 13, 6)  // Display P3
        #expect(try Self.decode(try LibAVIF.encodeStill(Photo.make(width: 16, height: 16), options)).color == .unspecified)
        options.cicp = (1, 13, 6)
        #expect(try Self.decode(try LibAVIF.encodeStill(Photo.make(width: 16, height: 16), options)).color == .sRGB)
    }
}

/// A 3x2 grid of distinct values, turned the ways HEIF and EXIF describe.
enum Grid {
    typealias Cells = [[Int]]
    static let stored: Cells = [[1, 2, 3], [4, 5, 6]]

    static func rotateAnticlockwise(_ g: Cells) -> Cells {
        let h = g.count, w = g[0].count
        return (0..<w).map { r in (0..<h).map { c in g[c][w - 1 - r] } }
    }
    static func flipTopBottom(_ g: Cells) -> Cells { g.reversed() }
    static func flipLeftRight(_ g: Cells) -> Cells { g.map { $0.reversed() } }
    static func transpose(_ g: Cells) -> Cells { (0..<g[0].count).map { r in g.map { $0[r] } } }

    /// HEIF: irot (anticlockwise quarter turns) first, then imir (0 top-bottom, 1 left-right).
    static func display(rotation: UInt8?, mirror: UInt8?) -> Cells {
        var g = stored
        for _ in 0..<Int(rotation ?? 0) { g = rotateAnticlockwise(g) }
        switch mirror {
        case 0: g = flipTopBottom(g)
        case 1: g = flipLeftRight(g)
        default: break
        }
        return g
    }

    /// EXIF: how to stand the stored image up for each orientation.
    static func upright(_ orientation: Orientation) -> Cells {
        let g = stored
        switch orientation {
        case .up: return g
        case .upMirrored: return flipLeftRight(g)
        case .down: return flipTopBottom(flipLeftRight(g))
        case .downMirrored: return flipTopBottom(g)
        case .leftMirrored: return transpose(g)
        case .right: return flipLeftRight(transpose(g))      // turn a quarter clockwise
        case .rightMirrored: return flipTopBottom(flipLeftRight(transpose(g)))
        case .left: return flipTopBottom(transpose(g))        // turn a quarter anticlockwise
        }
    }
}
