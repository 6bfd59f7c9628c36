import ImageCore
import Testing

/// thumbd's quality scale (JPEG's) mapped to libavif's: measured points kept, monotone, in range.
struct AVIFQualityScaleTests {
    @Test func measuredPointsAndEnds() {
        #expect(EncodeSettings.libavifQuality(matchingJPEG: 82) == 63)
        #expect(EncodeSettings.libavifQuality(matchingJPEG: 60) == 49)
        #expect(EncodeSettings.libavifQuality(matchingJPEG: 1) == 1 && EncodeSettings.libavifQuality(matchingJPEG: 100) == 100)
        #expect(EncodeSettings.libavifQuality(matchingJPEG: -5) == 1 && EncodeSettings.libavifQuality(matchingJPEG: 500) == 100)
    }

    @Test func neverDecreases() {
        let mapped = (1...100).map(EncodeSettings.libavifQuality(matchingJPEG:))
        #expect(zip(mapped, mapped.dropFirst()).allSatisfy { $0 <= $1 })
    }
}
