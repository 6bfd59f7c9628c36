import ImageCore
import ImagePlaceholder
import TestSupport
import Testing

@Suite("Hostile and malformed hashes")
struct MalformedHashTests {
    /// Every entry point must answer consistently: all refuse, or all answer sensibly.
    private func checkConsistent(_ hash: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let preview = ThumbHash.decode(hash)
        let colour = ThumbHash.averageColor(hash)
        let ratio = ThumbHash.aspectRatio(hash)
        #expect((preview == nil) == (colour == nil) && (colour == nil) == (ratio == nil),
                "entry points disagree on \(hex(hash))", sourceLocation: sourceLocation)
        if let preview {
            #expect(max(preview.width, preview.height) == 32 && min(preview.width, preview.height) >= 1, sourceLocation: sourceLocation)
            #expect(preview.pixels.count == preview.width * preview.height * 4, sourceLocation: sourceLocation)
        }
        if let ratio {
            #expect(ratio.isFinite && ratio >= 1.0 / 7 && ratio <= 7, "ratio \(ratio)", sourceLocation: sourceLocation)
        }
    }

    @Test("hashes shorter than the fixed header are refused")
    func tooShort() {
        var random = SeededRandom(seed: 1)
        for length in 0...4 {
            for _ in 0..<50 {
                let hash = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                #expect(ThumbHash.decode(hash) == nil)
                #expect(ThumbHash.averageColor(hash) == nil)
                #expect(ThumbHash.aspectRatio(hash) == nil)
            }
        }
    }

    @Test("every truncation of a real hash is refused, the whole hash accepted", arguments: TestImage.all)
    func truncations(_ sample: TestImage) throws {
        let hash = try #require(ThumbHash.encode(sample.image))
        for length in 0..<hash.count {
            #expect(ThumbHash.decode(Array(hash.prefix(length))) == nil, "prefix of \(length) of \(hash.count) bytes")
            checkConsistent(Array(hash.prefix(length)))
        }
        #expect(ThumbHash.decode(hash) != nil)
    }

    @Test("bytes after the last coefficient are ignored")
    func trailingBytes() throws {
        let hash = try #require(ThumbHash.encode(TestImage.all[2].image))
        #expect(ThumbHash.decode(hash + [0xAB, 0xCD]) == ThumbHash.decode(hash))
    }

    @Test("a header flagged for alpha needs its alpha byte")
    func alphaFlagWithoutAlphaByte() {
        // Luma count 3, alpha flag set, nothing after the five fixed bytes.
        #expect(ThumbHash.decode([0, 0, 0x80, 3, 0]) == nil)
        #expect(ThumbHash.averageColor([0, 0, 0x80, 3, 0]) == nil)
    }

    @Test("a luma count of zero, which no encoder writes, is refused")
    func zeroLumaCount() throws {
        var hash = try #require(ThumbHash.encode(TestImage.all[0].image))
        hash[3] &= 0b1111_1000
        #expect(ThumbHash.decode(hash) == nil)
        #expect(ThumbHash.aspectRatio(hash) == nil)
        checkConsistent(hash)
    }

    @Test("random bytes of every length never crash and answer consistently")
    func randomBytes() {
        var random = SeededRandom(seed: 0x7468_756D_6268)
        for length in 0...40 {
            for _ in 0..<120 {
                checkConsistent((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
            }
            checkConsistent([UInt8](repeating: 0xFF, count: length))
            checkConsistent([UInt8](repeating: 0x00, count: length))
        }
    }

    @Test("every header field at its extremes still gives a valid preview")
    func extremeHeaders() {
        // All-ones fields: the largest scales, alpha flag on, landscape, luma count 7 (more than
        // an alpha hash ever carries).
        let hash = [UInt8](repeating: 0xFF, count: 40)
        let preview = ThumbHash.decode(hash)
        #expect(preview != nil)
        #expect(ThumbHash.aspectRatio(hash) == 5.0 / 7.0)
        checkConsistent(hash)
    }
}
