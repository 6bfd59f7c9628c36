import ImageCore
import Testing
import TIFFCodec

/// The Orientation tag on otherwise identical files: reported as is, pixels always as stored.
@Suite("TIFF orientation")
struct TIFFOrientationTests {
    static let stored = Result { try PillowDecode.decode(TIFFTestFiles.url("orientation-1.tif")) }

    @Test("the tag is reported and the pixels come back as stored", .requires(PillowDecode.available, "needs Pillow"), arguments: Orientation.allCases)
    func storedPixels(_ orientation: Orientation) throws {
        let data = try TIFFTestFiles.bytes("orientation-\(orientation.rawValue).tif")
        let info = try TIFFCodec.readInfo(data, limits: DecodeLimits())
        #expect(info.orientation == orientation && info.width == 45 && info.height == 31)
        let decoded = try TIFFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.info.orientation == orientation)
        let same = decoded.pixels.pixels == (try Self.stored.get()).bytes
        #expect(same, "orientation \(orientation.rawValue) changed the stored pixels")
    }

    /// Pillow turns libtiff-decoded pages upright by the tag (its EXIF transpositions): thumbd's
    /// stored pixels turned by the reported orientation must give the same picture, so the
    /// numbering is EXIF's and the orientation is applied once.
    @Test("the stored pixels turned by the reported orientation are Pillow's upright page", .requires(PillowDecode.available, "needs Pillow"),
          arguments: Orientation.allCases)
    func uprightAsPillow(_ orientation: Orientation) throws {
        let file = TIFFTestFiles.url("orientation-\(orientation.rawValue).tif")
        let decoded = try TIFFCodec.decode(try TIFFTestFiles.bytes(file.lastPathComponent), limits: DecodeLimits(), scale: .fullSize)
        let upright = Compare.upright(decoded.pixels, decoded.info.orientation)
        let pillow = try PillowDecode.decode(file)
        #expect(upright.width == pillow.width && upright.height == pillow.height)
        let same = upright.pixels == pillow.bytes
        #expect(same, "orientation \(orientation.rawValue): the upright pixels differ from Pillow's")
    }

    /// Non-JPEG YCbCr goes through libtiff's RGBA reader, which flips rows or columns itself for
    /// some orientations unless told otherwise: every value must still give the stored pixels.
    @Test("YCbCr through libtiff's RGBA reader comes back as stored too", arguments: Orientation.allCases)
    func ycbcrStored(_ orientation: Orientation) throws {
        let data = try TIFFTestFiles.bytes("ycbcr420-orientation-\(orientation.rawValue).tif")
        let decoded = try TIFFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let plain = try TIFFCodec.decode(try TIFFTestFiles.bytes("ycbcr420-deflate.tif"), limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.info.orientation == orientation)
        let same = decoded.pixels == plain.pixels
        #expect(same, "orientation \(orientation.rawValue) changed the stored pixels")
    }
}
