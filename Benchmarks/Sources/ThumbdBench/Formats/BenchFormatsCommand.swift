import ArgumentParser
import ConsoleText
import Foundation
import ImageCore

/// `thumbd-bench formats`: what each output format costs at equal quality, and what colour
/// management costs a thumbnail.
struct BenchFormatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "formats",
        abstract: "Measure JPEG, WebP, AVIF and JPEG XL at equal SSIM, their cost per miss, and colour management's cost.",
        discussion: HelpText.reflowed("""
            For every photo of --corpus, its --size thumbnail (cover) is rendered once, then:
            1. encoded as JPEG at --jpeg-quality (82, the default), and scored by SSIM against the careful
               reference (full-size decode, one Lanczos-3 pass; as `thumbd-bench` scores quality);
            2. encoded as WebP, as AVIF (--avif-speed) and as JPEG XL (effort 5) at the lowest quality
               whose SSIM reaches JPEG's (bisection over 1...100): bytes and encode milliseconds at
               equal quality;
            3. made whole (decode, resize, encode) as JPEG, as AVIF and as JPEG XL at that quality:
               the CPU work of a daemon's miss in each format (target: AVIF under 2x JPEG);
            4. for JPEG photos, rendered untagged and tagged with an Adobe RGB (1998) ICC profile
               (Ghostscript's a98.icc; apt-get install libgs-common), with the colour stage's own
               time (target: under 5% of a thumbnail's time).
            Timings are medians of --rounds, one thread.
            """)
    )

    @Option(help: "Folder of photos.") var corpus = "../shared/corpora/photos"
    @Option(help: "Thumbnail size.") var size = 200
    @Option(help: "Timed runs per figure (median).") var rounds = 5
    @Option(name: .customLong("avif-speed"), help: "AVIF encoder speed.") var avifSpeed = EncodeSettings.defaultAVIFSpeed
    @Option(name: .customLong("jpeg-quality"), help: "JPEG's quality, whose SSIM WebP and AVIF are brought to.")
    var jpegQuality = EncodeSettings.defaultQuality
    @Option(help: "ICC profile for the colour figures.") var profile = "/usr/share/color/icc/ghostscript/a98.icc"
    @Flag(help: "Print JSON instead of tables.") var json = false

    func run() throws {
        let corpus = try BenchCorpus.load(corpus)
        let bench = BenchFormats(size: size, rounds: rounds, avifSpeed: avifSpeed, jpegQuality: jpegQuality,
                                 profile: FileManager.default.contents(atPath: profile).map { [UInt8]($0) })
        var rows: [BenchFormatRow] = []
        for file in corpus.files {
            do { rows.append(try bench.measure(file)) } catch {
                FileHandle.standardError.write(Data("bench: \(file.name): \(error)\n".utf8))
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(rows), as: UTF8.self))
            return
        }
        print(report(rows, profileFound: bench.profile != nil))
    }

    private func report(_ rows: [BenchFormatRow], profileFound: Bool) -> String {
        var out = ["thumbd-bench formats: \(rows.count) photos, \(size) px cover thumbnails, JPEG q\(jpegQuality), AVIF speed \(avifSpeed), medians of \(rounds)", ""]
        let table = rows.map { row -> [String] in
            let cells = row.encodings.flatMap { e in ["q\(e.quality)", TextTable.bytes(e.bytes), TextTable.fixed(e.encodeMs, 1)] }
            return [row.file] + cells + [TextTable.fixed(row.encodings.first?.ssim, 4)]
        }
        out.append(TextTable.render(["photo", "JPEG q", "bytes", "ms", "WebP q", "bytes", "ms", "AVIF q", "bytes", "ms", "JXL q", "bytes", "ms", "SSIM"],
                                    table, left: [0]))
        func median(_ values: [Double]) -> String { TextTable.fixed(BenchStats.median(values), 2) }
        func ratio(_ index: Int) -> [Double] {
            rows.compactMap { row in row.encodings[0].bytes > 0 ? Double(row.encodings[index].bytes) / Double(row.encodings[0].bytes) : nil }
        }
        out.append("  median quality at JPEG's SSIM: WebP q\(median(rows.map { Double($0.encodings[1].quality) })), AVIF q\(median(rows.map { Double($0.encodings[2].quality) })),"
                   + " JPEG XL q\(median(rows.map { Double($0.encodings[3].quality) }))")
        out.append("  median bytes at JPEG's SSIM: WebP \(median(ratio(1)))x JPEG, AVIF \(median(ratio(2)))x JPEG, JPEG XL \(median(ratio(3)))x JPEG")
        out.append("  median encode ms: JPEG \(median(rows.map { $0.encodings[0].encodeMs })), WebP \(median(rows.map { $0.encodings[1].encodeMs })),"
                   + " AVIF \(median(rows.map { $0.encodings[2].encodeMs })), JPEG XL \(median(rows.map { $0.encodings[3].encodeMs }))")
        out.append("  miss work (decode + resize + encode), median ms: JPEG \(median(rows.map(\.makeJPEGMs))),"
                   + " AVIF \(median(rows.map(\.makeAVIFMs))), JPEG XL \(median(rows.map(\.makeJXLMs))); AVIF/JPEG"
                   + " \(median(rows.map { $0.makeAVIFMs / max($0.makeJPEGMs, 0.001) }))x (target < 2x), JPEG XL/JPEG"
                   + " \(median(rows.map { $0.makeJXLMs / max($0.makeJPEGMs, 0.001) }))x")
        let tagged = rows.filter { $0.renderTaggedMs != nil }
        if tagged.isEmpty {
            out.append("  colour: " + (profileFound ? "no JPEG photo to tag" : "no profile at \(profile) (apt-get install libgs-common): not measured"))
        } else {
            let share = tagged.compactMap { row in row.colorMs.flatMap { c in row.renderTaggedMs.map { c / $0 * 100 } } }
            out.append("  colour (\(tagged.count) JPEG photos tagged Adobe RGB): render untagged \(median(tagged.compactMap(\.renderUntaggedMs))) ms,"
                       + " tagged \(median(tagged.compactMap(\.renderTaggedMs))) ms; the conversion \(median(tagged.compactMap(\.colorMs))) ms,"
                       + " \(median(share))% of the render (target < 5%)")
        }
        return out.joined(separator: "\n")
    }
}
