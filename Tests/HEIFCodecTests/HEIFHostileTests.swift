import HEIFCodec
import ImageCodecs
import ImageCore
import Testing
import TestSupport

/// Broken HEIC: every refusal has a stable code; nothing crashes, nothing is decoded from partial data.
@Suite("HEIC hostile input", .requires(HEIFEnc.available, Comment(rawValue: HEIFEnc.missing ?? "")))
struct HEIFHostileTests {
    static let photo = try! HEIFEnc.encode(PhonePhoto.synthetic(width: 64, height: 48, seed: 11))
    static let grid = try! HEIFEnc.encode(PhonePhoto.synthetic(width: 63, height: 31, seed: 12))
    static let dataCodes: Set<ImageError.Code> = [.corruptImage, .truncatedImage, .unsupportedFormat, .pixelLimitExceeded]

    @Test("a file cut anywhere is refused; a cut inside a box is truncated_image", arguments: ["photo", "grid"])
    func truncated(_ which: String) throws {
        let data = which == "photo" ? Self.photo : Self.grid
        let mdat = try #require(HEIFBoxes.find(data, "mdat")) - 4
        var truncatedCount = 0
        for length in Array(1..<40) + Array(stride(from: 40, to: data.count, by: 7)) {
            let cut = Array(data.prefix(length))
            let error = #expect(throws: ImageError.self, "\(which) cut at \(length) of \(data.count) decoded") {
                _ = try ImageCodecs.decode(cut)
            }
            guard let error else { continue }
            #expect(Self.dataCodes.contains(error.code), "\(length): \(error)")
            // Once the major brand is there (12 bytes), a cut inside any box: every top-level box is
            // checked whole. (Shorter, the sniffer cannot tell HEIC: unsupported_format.)
            if length >= 12 && length != mdat {
                #expect(error.code == .truncatedImage, "\(which) cut at \(length): \(error)")
            }
            if error.code == .truncatedImage { truncatedCount += 1 }
        }
        #expect(truncatedCount > 10)
    }

    @Test("the mdat box missing entirely (a cut between two boxes) is truncated_image: the item data lies past the end")
    func mdatMissing() throws {
        let mdat = try #require(HEIFBoxes.find(Self.photo, "mdat")) - 4
        let error = #expect(throws: ImageError.self) { _ = try HEIFCodec.decode(Array(Self.photo.prefix(mdat)), limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .truncatedImage, "\(String(describing: error))")
    }

    @Test("flipped bytes anywhere give a known code or a decoded image, never a crash")
    func flippedBytes() throws {
        var random = SeededRandom(seed: 19)
        var refusals: [ImageError.Code: Int] = [:]
        for data in [Self.photo, Self.grid] {
            for _ in 0..<150 {
                var damaged = data
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    let at = Int(random.next() % UInt64(damaged.count))
                    damaged[at] ^= UInt8(1 << (random.next() % 8))
                }
                do {
                    let decoded = try ImageCodecs.decode(damaged)
                    #expect(decoded.pixels.pixels.count == decoded.pixels.width * decoded.pixels.height * 4)
                } catch {
                    #expect(Self.dataCodes.contains(error.code), "\(error)")
                    refusals[error.code, default: 0] += 1
                }
            }
        }
        print("HEIC with flipped bits: refusals \(refusals.map { "\($0.key.rawValue) \($0.value)" }.sorted())")
    }

    @Test("HEIC is sniffed by its ftyp brands; AVIF brands go to libavif, other ISO media is unsupported")
    func sniffing() {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            HEIFBoxes.be32(16 + 4 * compatible.count) + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
                + compatible.flatMap { Array($0.utf8) } + [0, 0, 0, 8] + Array("meta".utf8)
        }
        for brand in ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"] {
            #expect(SniffedFormat.sniff(ftyp(brand, [])) == .supported(.heic), "\(brand)")
            #expect(HEIFCodec.sniff(ftyp("mp42", [brand])), "\(brand) as a compatible brand")
        }
        #expect(SniffedFormat.sniff(ftyp("mif1", ["miaf", "avif"])) == .supported(.avif))
        #expect(SniffedFormat.sniff(ftyp("heic", ["mif1", "avif"])) == .supported(.avif))
        #expect(SniffedFormat.sniff(ftyp("isom", ["mp42"])) != .supported(.heic))
        #expect(SniffedFormat.sniff(ftyp("crx ", ["isom"])) != .supported(.heic))
        let error = #expect(throws: ImageError.self) { _ = try ImageCodecs.decode(ftyp("isom", ["mp42"])) }
        #expect(error?.code == .unsupportedFormat)
    }

    @Test("an image sequence with no still image (moov, no meta) is unsupported_format")
    func sequenceOnly() {
        let data = HEIFBoxes.be32(16) + Array("ftypmsf1".utf8) + [0, 0, 0, 0] + HEIFBoxes.be32(16) + Array("moov".utf8) + [UInt8](repeating: 0, count: 8)
        let error = #expect(throws: ImageError.self) { _ = try ImageCodecs.decode(data) }
        #expect(error?.code == .unsupportedFormat, "\(String(describing: error))")
    }
}
