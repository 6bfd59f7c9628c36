import BMPCodec
import Foundation
import TestSupport
import ImageCore
import Testing

/// Strangers' bytes: every committed BMP cut short and mutated thousands of times. Each decode must
/// return an image or throw an ImageError (the typed throws guarantee which), never crash, never
/// return a partial image for a cut file, and finish quickly.
@Suite("BMP hostile input")
struct BMPHostileTests {
    static let files: [(String, [UInt8])] = BMPTestFiles.all.compactMap { name in (try? BMPTestFiles.bytes(name)).map { (name, $0) } }

    /// RLE may end early (end-of-bitmap), so a cut may still hold the whole image; a trailing ICC
    /// profile may be cut off. Everything else needs every byte up to its last row.
    static func mayDecodeWhenCut(_ name: String) -> Bool {
        name.hasPrefix("rle") || name == "v5_embedded_profile.bmp"
    }

    @Test("every cut is truncated_image, or (RLE after its last row, a cut-off trailing profile) the same pixels")
    func everyCut() throws {
        try #require(Self.files.count >= 28)
        var cuts = 0
        for (name, data) in Self.files {
            let whole = try BMPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
            for length in 1..<data.count {
                cuts += 1
                let cut = Array(data.prefix(length))
                do throws(ImageError) {
                    let image = try BMPCodec.decode(cut, limits: DecodeLimits(), scale: .fullSize)
                    #expect(Self.mayDecodeWhenCut(name), "\(name) cut to \(length) of \(data.count) bytes decoded")
                    #expect(image.pixels == whole.pixels, "\(name) cut to \(length) decoded other pixels")
                } catch {
                    #expect(error.code == .truncatedImage, "\(name) cut to \(length): \(error)")
                }
                if !Self.mayDecodeWhenCut(name) {
                    #expect(refusal { () throws(ImageError) in try BMPCodec.readInfo(cut, limits: DecodeLimits()) }?.code == .truncatedImage,
                            "readInfo of \(name) cut to \(length)")
                }
            }
        }
        print("BMP: \(cuts) cuts of \(Self.files.count) files")
    }


    /// 16- or 32-bit fields in the headers (file header, info header, masks, palette start).
    static let fields = HostileBytes.Fields(values: [0, 1, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFF0, 46341, 0x00FF_FFFF],
                                            window: 14 + 124 + 16, widths: [2, 4])

    @Test("3,000 seeded mutations: an image or an ImageError, each in well under a second")
    func mutations() throws {
        try #require(!Self.files.isEmpty)
        let tally = HostileBytes.run(Self.files.map { ($0.0, $0.1) }, count: 3000, seed: 0xB3B, fields: Self.fields,
                                     decode: { (data) throws(ImageError) in try BMPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) },
                                     alsoRun: { data in
                                         _ = try? BMPCodec.readInfo(data, limits: DecodeLimits())
                                         _ = try? BMPCodec.embeddedColor(in: data)
                                     })
        print("BMP mutations: \(tally.outcomes.sorted { $0.key < $1.key }), slowest \(tally.slowest) (\(tally.slowestInput))")
        #expect(tally.outcomes["malformed image"] == nil)
        #expect(tally.slowest < .seconds(1), "\(tally.slowestInput) took \(tally.slowest)")
        #expect(tally.decoded > 100 && tally[.truncatedImage] > 100, "\(tally.outcomes)")
    }

    @Test("header fields set to every extreme value, one at a time, in every file")
    func extremeFields() throws {
        var checked = 0
        let clock = ThreadCPUClock()
        for (name, original) in Self.files {
            for at in stride(from: 2, to: min(original.count - 4, 14 + 124 + 16), by: 2) {
                for value: UInt32 in [0, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF] {
                    var data = original
                    for i in 0..<4 { data[at + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
                    let started = clock.now
                    _ = try? BMPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
                    #expect(clock.now - started < .seconds(1), "\(name) with \(value) at \(at)")
                    checked += 1
                }
            }
        }
        #expect(checked > 2000)
    }
}
