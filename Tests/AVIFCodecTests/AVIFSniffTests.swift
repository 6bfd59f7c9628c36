import AVIFCodec
import CAVIF
import ImageCore
import Testing

@Suite("AVIF sniffing")
struct AVIFSniffTests {
    static let cases: [(major: String, compatible: [String], isAVIF: Bool)] = [
        ("avif", ["mif1", "avif", "miaf", "MA1B"], true),  // libavif's still images
        ("avis", ["avif", "avis", "msf1", "iso8", "mif1", "miaf", "MA1B"], true),
        ("avis", [], true),
        ("mif1", ["avif"], true),  // brand only among the compatible ones
        ("mif1", ["miaf", "avis"], true),
        ("heic", ["mif1", "heic"], false),
        ("mif1", ["heic", "miaf"], false),
        ("heix", ["mif1", "heix"], false),
        ("isom", ["isom", "iso2", "mp41"], false),  // MP4
        ("AVIF", ["MIF1"], false),  // brands are case-sensitive
        ("avi ", ["avi ", " avi"], false),
    ]

    @Test("ftyp brands decide", arguments: cases.indices)
    func brands(index: Int) {
        let c = Self.cases[index]
        let head = Boxes.ftyp(major: c.major, compatible: c.compatible)
        #expect(AVIFCodec.sniff(head) == c.isAVIF, "\(c)")
        #expect(AVIFCodec.sniff(head + [0, 0, 0, 8] + Array("meta".utf8)) == c.isAVIF, "\(c)")
        // libavif agrees.
        let peek = head.withUnsafeBufferPointer { buffer in
            var data = avifROData(data: buffer.baseAddress, size: buffer.count)
            return avifPeekCompatibleFileType(&data) != 0
        }
        #expect(peek == c.isAVIF, "libavif's avifPeekCompatibleFileType for \(c)")
    }

    @Test("files we and libavif write sniff as AVIF; other formats do not")
    func files() throws {
        #expect(AVIFCodec.sniff(try AVIFCodec.encode(Photo.make(width: 8, height: 8), quality: 82, speed: 10)))
        #expect(AVIFCodec.sniff(try LibAVIF.encodeSequence([Photo.make(width: 8, height: 8)])))
        #expect(!AVIFCodec.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1]))
        #expect(!AVIFCodec.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)))
        #expect(!AVIFCodec.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]))
    }

    @Test("only the first bytes are needed; a brand past them is not seen")
    func prefixes() {
        let head = Boxes.ftyp(major: "mif1", compatible: ["miaf", "avif"])
        #expect(AVIFCodec.sniff(Array(head.prefix(head.count))))
        #expect(!AVIFCodec.sniff(Array(head.prefix(head.count - 1))))  // the avif brand is cut
        let major = Boxes.ftyp(major: "avif", compatible: ["mif1"])
        #expect(AVIFCodec.sniff(Array(major.prefix(12))))
        #expect(!AVIFCodec.sniff(Array(major.prefix(11))))
    }

    @Test("impossible ftyp sizes are not AVIF")
    func impossibleSizes() {
        var head = Boxes.ftyp(major: "avif", compatible: ["mif1"])
        head.replaceSubrange(0..<4, with: [0, 0, 0, 9])
        #expect(!AVIFCodec.sniff(head))
        head.replaceSubrange(0..<4, with: [0, 0, 0, 0])  // to the end of the file
        #expect(AVIFCodec.sniff(head))
    }
}
