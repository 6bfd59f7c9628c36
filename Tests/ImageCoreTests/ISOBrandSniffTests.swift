import ImageCore
import Testing

/// AVIF is told from HEIC, and both from other ISO media, by their ftyp brands, whatever form the
/// box's size takes.
struct ISOBrandSniffTests {
    static func ftyp(size: UInt32, largeSize: UInt64? = nil, major: String, compatible: [String]) -> [UInt8] {
        var bytes = withUnsafeBytes(of: size.bigEndian, Array.init) + Array("ftyp".utf8)
        if let largeSize { bytes += withUnsafeBytes(of: largeSize.bigEndian, Array.init) }
        bytes += Array(major.utf8) + [0, 0, 0, 0]
        for brand in compatible { bytes += Array(brand.utf8) }
        return bytes + [UInt8](repeating: 0, count: 32)
    }

    @Test func brandsInAnySizeForm() {
        let brands = ["mif1", "miaf", "avif"]
        let plain = Self.ftyp(size: UInt32(16 + 4 * brands.count), major: "mif1", compatible: brands)
        let large = Self.ftyp(size: 1, largeSize: UInt64(24 + 4 * brands.count), major: "mif1", compatible: brands)
        let toTheEnd = Self.ftyp(size: 0, major: "mif1", compatible: brands)
        for data in [plain, large, toTheEnd] { #expect(SniffedFormat.sniff(data) == .supported(.avif)) }
        #expect(SniffedFormat.sniff(Self.ftyp(size: 20, major: "heic", compatible: ["mif1"])) == .supported(.heic))
        // A brand past the box's end is not the box's.
        #expect(SniffedFormat.sniff(Self.ftyp(size: 20, major: "heic", compatible: ["mif1", "avif"])) == .supported(.heic))
        #expect(SniffedFormat.sniff(Self.ftyp(size: 20, major: "isom", compatible: ["mp42", "heic"])) == .unsupported("ISO media (MP4, QuickTime or a HEIF kind other than AVIF and HEIC)"))
        for data in [Self.ftyp(size: 1, largeSize: 28, major: "mif1", compatible: ["heic", "miaf"]), Self.ftyp(size: 0, major: "isom", compatible: ["heix"])] {
            #expect(SniffedFormat.sniff(data) == .supported(.heic))
        }
    }
}
