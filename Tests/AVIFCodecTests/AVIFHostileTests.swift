@testable import AVIFCodec
import ImageCore
import Testing

/// Strangers' bytes: cut short, damaged or made up. Every one must be refused with an error, never
/// decoded from partial data and never a crash.
@Suite("AVIF hostile input")
struct AVIFHostileTests {
    static let photo = try! AVIFCodec.encode(Photo.make(width: 64, height: 48, seed: 21), quality: 82, speed: 10)
    static let alphaPhoto = try! AVIFCodec.encode(Photo.make(width: 64, height: 48, seed: 22, alpha: true), quality: 82, speed: 10)
    static let sequence = try! LibAVIF.encodeSequence([Photo.make(width: 64, height: 48, seed: 23), Photo.make(width: 64, height: 48, seed: 24)])

    /// Every length through the ftyp and meta boxes and the mdat header (a cut exactly between meta
    /// and mdat among them), then a step through the AV1 data.
    static func cuts(_ data: [UInt8]) -> [Int] {
        let count = data.count
        let metaEnd = Boxes.topLevel(data, "mdat")?.offset ?? 64
        return Array(Set(Array(1...min(count - 1, metaEnd + 16)) + Array(stride(from: metaEnd, to: count, by: 9)) + [count - 2, count - 1]))
            .filter { $0 > 0 && $0 < count }.sorted()
    }

    static func refusal(_ data: [UInt8], _ body: ([UInt8]) throws(ImageError) -> Void) -> ImageError? {
        do throws(ImageError) {
            try body(data)
            return nil
        } catch {
            return error
        }
    }

    @Test("every prefix of a file is truncated_image, for readInfo and decode", arguments: ["opaque", "alpha", "sequence"])
    func everyPrefix(kind: String) throws {
        let data = kind == "alpha" ? Self.alphaPhoto : kind == "sequence" ? Self.sequence : Self.photo
        _ = try AVIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)  // whole, it decodes
        var wrong: [String] = []
        for cut in Self.cuts(data) {
            let prefix = Array(data.prefix(cut))
            let decodeError = Self.refusal(prefix) { d throws(ImageError) in _ = try AVIFCodec.decode(d, limits: DecodeLimits(), scale: .fullSize) }
            let infoError = Self.refusal(prefix) { d throws(ImageError) in _ = try AVIFCodec.readInfo(d, limits: DecodeLimits()) }
            if decodeError?.code != .truncatedImage || infoError?.code != .truncatedImage {
                wrong.append("cut \(cut) of \(data.count): decode \(String(describing: decodeError)), readInfo \(String(describing: infoError))")
            }
            #expect(AVIFCodec.iccProfile(in: prefix) == nil)
        }
        #expect(wrong.isEmpty, "\(wrong.count) cuts: \(wrong.prefix(5).joined(separator: "\n"))")
    }

    @Test("zero-length and tiny inputs are refused")
    func empty() {
        let error = #expect(throws: ImageError.self) { _ = try AVIFCodec.decode([], limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .corruptImage)
        #expect(throws: ImageError.self) { _ = try AVIFCodec.readInfo([], limits: DecodeLimits()) }
        #expect(AVIFCodec.iccProfile(in: []) == nil)
        #expect(!AVIFCodec.sniff([]))
        for junk: [UInt8] in [[0xFF], [1, 2, 3, 4, 5, 6, 7, 8], Array("GIF89a".utf8), [0x89, 0x50, 0x4E, 0x47]] {
            let junkError = #expect(throws: ImageError.self) { _ = try AVIFCodec.decode(junk, limits: DecodeLimits(), scale: .fullSize) }
            #expect(junkError?.code == .corruptImage)
        }
    }

    @Test("random bytes after a valid ftyp box are refused", arguments: Array(UInt64(1)...40))
    func randomAfterFtyp(seed: UInt64) throws {
        let ftyp = try #require(Boxes.topLevel(Self.photo, "ftyp"))
        var rng = SplitMix64(seed: seed)
        let length = Int(rng.next() % 2000) + 1
        var data = Array(Self.photo.prefix(ftyp.size))
        for _ in 0..<length { data.append(UInt8(truncatingIfNeeded: rng.next())) }
        if seed % 4 == 0 {
            // A plausible box header (a meta box of the right size) around the noise.
            data.replaceSubrange(ftyp.size..<ftyp.size + 8, with: Boxes.be32(UInt32(length)) + Array("meta".utf8))
        }
        let error = #expect(throws: ImageError.self) { _ = try AVIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error.map { $0.code.isDataRefusal || $0.code == .unsupportedFormat } == true, "\(String(describing: error))")
        #expect(throws: ImageError.self) { _ = try AVIFCodec.readInfo(data, limits: DecodeLimits()) }
        _ = AVIFCodec.iccProfile(in: data)
    }

    @Test("random bytes in place of the meta box's contents are refused or decode, never crash", arguments: Array(UInt64(1)...24))
    func randomMeta(seed: UInt64) throws {
        let meta = try #require(Boxes.topLevel(Self.alphaPhoto, "meta"))
        var rng = SplitMix64(seed: seed)
        var data = Self.alphaPhoto
        // Keep the meta box header (and its version and flags); scramble a run inside it.
        let start = meta.offset + 12 + Int(rng.next() % UInt64(meta.size - 20))
        let end = min(meta.offset + meta.size, start + 1 + Int(rng.next() % 64))
        for i in start..<end { data[i] = UInt8(truncatingIfNeeded: rng.next()) }
        _ = try? AVIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        _ = try? AVIFCodec.readInfo(data, limits: DecodeLimits())
        _ = AVIFCodec.iccProfile(in: data)
    }

    @Test("flipped bytes anywhere are refused or decode, never crash")
    func flips() throws {
        var rng = SplitMix64(seed: 99)
        var refused = 0
        for _ in 0..<300 {
            var data = Self.alphaPhoto
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let at = Int(rng.next() % UInt64(data.count))
                data[at] ^= UInt8(1 << (rng.next() % 8))
            }
            do throws(ImageError) {
                let image = try AVIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
                #expect(image.pixels.pixels.count == image.pixels.width * image.pixels.height * 4)
            } catch {
                refused += 1
            }
        }
        #expect(refused > 0)
    }

    @Test("the AV1 data cut with the box sizes made consistent is refused")
    func cutAndPatched() throws {
        let mdat = try #require(Boxes.topLevel(Self.photo, "mdat"))
        let payload = mdat.size - 8
        for keep in [payload - 3, payload / 2, 10] {
            var data = Array(Self.photo.prefix(mdat.offset + 8 + keep))
            data.replaceSubrange(mdat.offset..<mdat.offset + 4, with: Boxes.be32(UInt32(8 + keep)))
            let error = #expect(throws: ImageError.self, "\(keep) of \(payload) AV1 bytes decoded") {
                _ = try AVIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
            }
            #expect(error.map { $0.code.isDataRefusal } == true, "\(String(describing: error))")
        }
    }

    @Test("a box that declares more bytes than the file has is truncated; an impossible box size is corrupt")
    func boxSizes() throws {
        let ftyp = try #require(Boxes.topLevel(Self.photo, "ftyp"))
        var long = Self.photo
        long.replaceSubrange(ftyp.size..<ftyp.size + 4, with: Boxes.be32(0x7FFF_FFF0))
        let longError = #expect(throws: ImageError.self) { _ = try AVIFCodec.readInfo(long, limits: DecodeLimits()) }
        #expect(longError?.code == .truncatedImage)

        var impossible = Self.photo
        impossible.replaceSubrange(ftyp.size..<ftyp.size + 4, with: Boxes.be32(3))
        let impossibleError = #expect(throws: ImageError.self) { _ = try AVIFCodec.readInfo(impossible, limits: DecodeLimits()) }
        #expect(impossibleError?.code == .corruptImage)
    }

    @Test("a HEIC (brands heic, mif1) is unsupported, not corrupt")
    func heic() {
        let data = Boxes.ftyp(major: "heic", compatible: ["mif1", "heic"]) + Boxes.be32(8) + Array("free".utf8)
        let error = #expect(throws: ImageError.self) { _ = try AVIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .unsupportedFormat)
    }

    @Test("an AVIF with no image in it is refused")
    func noImage() {
        let data = Boxes.ftyp(major: "avif", compatible: ["mif1", "avif"]) + Boxes.be32(8) + Array("free".utf8)
        let error = #expect(throws: ImageError.self) { _ = try AVIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error.map { $0.code.isDataRefusal } == true, "\(String(describing: error))")
    }
}
