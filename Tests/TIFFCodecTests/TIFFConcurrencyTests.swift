import ImageCore
import Testing
import TIFFCodec

/// thumbd decodes one image per core at once: libtiff handles are independent, its process-wide
/// handlers are set once. Decodes running side by side must give what they give alone.
@Suite("TIFF concurrency")
struct TIFFConcurrencyTests {
    static let files = ["rgb8-lzw.tif", "ycbcr-jpeg420-tiled.tif", "separate-tiled-rgba8.tif", "ycbcr420-deflate.tif",
                        "palette4.tif", "grey16.tif", "cmyk-alpha8.tif", "bilevel-group4.tif"]

    @Test("parallel decodes match serial ones, and broken files fail the same way beside them")
    func parallel() async throws {
        let inputs = try Self.files.map { try TIFFTestFiles.bytes($0) }
        let serial = try inputs.map { try TIFFCodec.decode($0, limits: DecodeLimits(), scale: .fullSize).pixels }
        let results = await withTaskGroup(of: (Int, PixelBuffer?, ImageError.Code?).self) { group in
            for round in 0..<8 {
                for (index, data) in inputs.enumerated() {
                    group.addTask {
                        // Every other round a cut copy, so failures and successes interleave.
                        let input = round % 2 == 0 ? data : Array(data.prefix(data.count / 2))
                        do throws(ImageError) {
                            return (index, try TIFFCodec.decode(input, limits: DecodeLimits(), scale: .fullSize).pixels, nil)
                        } catch {
                            return (index, nil, error.code)
                        }
                    }
                }
            }
            var all: [(Int, PixelBuffer?, ImageError.Code?)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 8 * inputs.count)
        for (index, pixels, code) in results {
            if let pixels {
                let same = pixels == serial[index]
                #expect(same, "\(Self.files[index]) decoded differently beside others")
            } else {
                #expect(code == .truncatedImage, "\(Self.files[index]) cut in half: \(String(describing: code))")
            }
        }
        #expect(results.filter { $0.1 != nil }.count == 4 * inputs.count)
    }
}
