import Foundation
import TestSupport
import GIFCodec
import ImageCore
import Testing

/// Strangers' bytes: every committed GIF cut short and mutated thousands of times. Each decode must
/// return an image or throw an ImageError (the typed throws guarantee which), never crash, never
/// return a partial first frame, and finish quickly.
@Suite("GIF hostile input")
struct GIFHostileTests {
    static let files: [(String, [UInt8])] = GIFTestFiles.all.compactMap { name in (try? GIFTestFiles.bytes(name)).map { (name, $0) } }

    @Test("a cut before the first frame's data ends is truncated_image; after it, the same first frame")
    func everyCut() throws {
        try #require(Self.files.count >= 12)
        var cuts = 0
        for (name, data) in Self.files where name != "no_color_table.gif" {
            let frameEnd = try #require(GIFBuilder.firstFrameEnd(data), "\(name)")
            let whole = try GIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
            for length in 1..<data.count {
                cuts += 1
                let cut = Array(data.prefix(length))
                let decoded = Result { () throws(ImageError) in try GIFCodec.decode(cut, limits: DecodeLimits(), scale: .fullSize) }
                let info = Result { () throws(ImageError) in try GIFCodec.readInfo(cut, limits: DecodeLimits()) }
                if length < frameEnd {
                    #expect(decoded.refusalCode == .truncatedImage, "\(name) cut to \(length) of \(data.count): \(decoded)")
                    #expect(info.refusalCode == .truncatedImage, "readInfo of \(name) cut to \(length): \(info)")
                } else {
                    #expect((try? decoded.get())?.pixels == whole.pixels, "\(name) cut to \(length) (its first frame ends at \(frameEnd))")
                    #expect((try? info.get())?.width == whole.info.width)
                }
            }
        }
        // The file with no colour table: truncated until giflib has read its image descriptor and LZW
        // code size (screen 13 bytes, Graphics Control Extension 8, descriptor 10, code size 1), corrupt after.
        let noTable = try GIFTestFiles.bytes("no_color_table.gif")
        for length in 1..<noTable.count {
            let error = refusal { () throws(ImageError) in try GIFCodec.decode(Array(noTable.prefix(length)), limits: DecodeLimits(), scale: .fullSize) }
            #expect(error?.code == (length < 13 + 8 + 10 + 1 ? .truncatedImage : .corruptImage), "no_color_table.gif cut to \(length): \(String(describing: error))")
        }
        print("GIF: \(cuts) cuts of \(Self.files.count - 1) files")
    }


    /// 16-bit fields anywhere (screen, descriptors, extensions).
    static let fields = HostileBytes.Fields(values: [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0xFF00, 0x00FF, 4096, 8000], window: .max, widths: [2])

    @Test("3,000 seeded mutations: an image or an ImageError, each in well under a second")
    func mutations() throws {
        try #require(!Self.files.isEmpty)
        let tally = HostileBytes.run(Self.files.map { ($0.0, $0.1) }, count: 3000, seed: 0x61F, fields: Self.fields,
                                     decode: { (data) throws(ImageError) in try GIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) },
                                     alsoRun: { data in
                                         _ = try? GIFCodec.readInfo(data, limits: DecodeLimits())
                                         _ = try? GIFCodec.embeddedColor(in: data)
                                     })
        print("GIF mutations: \(tally.outcomes.sorted { $0.key < $1.key }), slowest \(tally.slowest) (\(tally.slowestInput))")
        #expect(tally.outcomes["malformed image"] == nil)
        #expect(tally.slowest < .seconds(1), "\(tally.slowestInput) took \(tally.slowest)")
        #expect(tally.decoded > 100 && tally[.truncatedImage] > 100, "\(tally.outcomes)")
    }

    @Test("the screen and first frame's fields set to extreme values, one at a time, in every file")
    func extremeFields() throws {
        var checked = 0
        let clock = ThreadCPUClock()
        for (name, original) in Self.files {
            // The screen descriptor and the first bytes after it (tables, extensions, the descriptor).
            for at in 6..<min(original.count - 1, 120) {
                for value in [0, 0xFFFF, 0x8000] {
                    var data = original
                    data[at] = UInt8(value & 0xFF)
                    data[at + 1] = UInt8(value >> 8)
                    let started = clock.now
                    _ = try? GIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
                    #expect(clock.now - started < .seconds(1), "\(name) with \(value) at \(at)")
                    checked += 1
                }
            }
        }
        #expect(checked > 2000)
    }
}

extension Result where Failure == ImageError {
    /// The code of the error, nil for a success.
    var refusalCode: ImageError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
