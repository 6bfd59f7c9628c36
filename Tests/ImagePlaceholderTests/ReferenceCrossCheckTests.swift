import ImageCore
import ImagePlaceholder
import Testing

/// Our hashes and previews against the independent thumbhash-python package.
///
/// Serialized: each case starts a Python process, and the machine is shared.
@Suite("ThumbHash vs thumbhash-python", .serialized)
struct ReferenceCrossCheckTests {
    @Test("thumbhash-python is installed for the cross-check")
    func referenceInstalled() {
        guard let version = PythonReference.requireAvailable() else { return }
        #expect(!version.isEmpty)
    }

    @Test("encode matches thumbhash-python byte for byte", arguments: TestImage.all)
    func encodeMatches(_ sample: TestImage) throws {
        guard PythonReference.requireAvailable() != nil else { return }
        let ours = try #require(ThumbHash.encode(sample.image))
        let reference = try PythonReference.encode(sample.image)

        // Same pixels, same rounding: every byte must agree.
        #expect(hex(ours) == hex(reference.halfUp))
        // With its own rounding the package may only differ where it met an exact half.
        if reference.tieCount == 0 {
            #expect(hex(ours) == hex(reference.stock), "no ties, so the stock package must agree too")
        } else {
            #expect(hex(ours) != hex(reference.stock), "\(reference.tieCount) ties should have changed the stock hash")
            #expect(ours.count == reference.stock.count)
        }
    }

    @Test("the tie images really exercise the rounding difference")
    func tiesOccur() throws {
        guard PythonReference.requireAvailable() != nil else { return }
        for name in ["rounding tie", "translucent tie"] {
            let sample = try #require(TestImage.all.first { $0.name == name })
            #expect(try PythonReference.encode(sample.image).tieCount > 0, "\(name)")
        }
    }

    @Test("decode matches thumbhash-python's preview within one level", arguments: TestImage.all)
    func decodeMatches(_ sample: TestImage) throws {
        guard PythonReference.requireAvailable() != nil else { return }
        let hash = try #require(ThumbHash.encode(sample.image))
        let ours = try #require(ThumbHash.decode(hash))
        let theirs = try PythonReference.decode(hash)
        #expect(ours.width == theirs.width && ours.height == theirs.height)
        try #require(ours.pixels.count == theirs.rgba.count)
        let worst = zip(ours.pixels, theirs.rgba).map { abs(Int($0) - Int($1)) }.max() ?? 0
        // Both round to nearest; only a value within a hair of a half can land differently.
        #expect(worst <= 1, "largest channel difference \(worst)")
    }
}
