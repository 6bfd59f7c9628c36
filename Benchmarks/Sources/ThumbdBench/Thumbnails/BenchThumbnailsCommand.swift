import ArgumentParser
import ConsoleText
import Foundation
import ImageCore
import Thumbnailer

/// `thumbd-bench` (its default subcommand, `thumbnails`): thumbnail speed, memory and quality
/// against vipsthumbnail, Pillow and the djpeg floor, measured in the same run.
struct BenchThumbnailsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Measure thumbnail speed and quality against vipsthumbnail, Pillow and djpeg.",
        discussion: HelpText.reflowed("""
            Every tool runs over the same files in the same run; the ratios are
            printed. Use a release build (swift build -c release): a debug build
            prints a warning. Each speed figure is the median of --rounds timed
            rounds after one warm-up; the tools' rounds are interleaved (round 1
            of each, then round 2 of each...), so a change in machine load hits
            them alike. Files that fail are listed with their error code and left
            out of every figure; a peer that is missing is reported, not fatal.

            SPEED (read + decode + crop/resize + JPEG q82 encode, all files)
            - thumbd in-process, 1 worker: a sequential loop in this process,
              reading each file and running ThumbnailMaker (the daemon's maker). Nothing is written.
            - thumbd in-process, N workers: the same, one job per core at once.
            - thumbd thumbnail (child process): the real CLI over the batch in one
              process, on the same footing as vipsthumbnail (start-up and file
              writes included); with --jobs 1 under taskset -c 0, and unrestricted;
              --gravity center, as vipsthumbnail crops (the CLI's default is smart).
            - vipsthumbnail: one invocation over every file, --size NxN
              --smartcrop centre -o DIR/%s.jpg[Q=82]; wall clock; under taskset
              -c 0 (compared with thumbd's 1 worker) and unrestricted (compared
              with thumbd's N workers).
            - Pillow: python3 with PIL: open, draft('RGB', (N, N)), EXIF
              transpose, centre square, resize LANCZOS, save JPEG q82; timed in
              Python around the loop (no interpreter start-up), single-threaded.
            - images/s and MP/s: files, and megapixels of the sources, per second.
            - p50/p95 ms: per-image times pooled over the timed rounds.
            - peak RSS: in-process rows: this process's VmHWM, reset before each
              round (the whole bench process, not thumbd alone); child rows: the
              child's ru_maxrss (wait4) from a warm-up run made early, while this
              process is small (Linux starts a child's figure at its parent's RSS).

            WHERE THUMBD'S TIME GOES: mean ms per stage (read, decode, resize,
            encode) and the decoded pixels as a share of the full image.

            JPEG ONLY, THE FLOOR (PNG and WebP files are not in these figures)
            - djpeg -scale 1/8 -outfile /dev/null, one process per JPEG: decoding
              at the smallest size and nothing else, process start-up included.
            - decode at 1/8 in-process: ImageCodecs.decode with minimum scale
              1/8 after reading the file; no start-up.
            - thumbd's and Pillow's rows: the JPEG files' share of their rounds.

            RATIOS: images/s of thumbd over each peer (above 1: thumbd is faster),
            at the first --headroom; for the floor, how many times faster the
            floor is than thumbd.

            QUALITY: SSIM (ImageQuality, luma) against a reference made from the
            full-size decode, turned upright, its centre square resized by
            Lanczos-3 (premultiplied alpha) straight to NxN. thumbd is scored on
            its pixels before encoding (Thumbnailer.render); vipsthumbnail and
            Pillow on a second, untimed run that writes PNG. Mean and minimum
            always; per file with --verbose.

            SHAPE: --shape WxH also times WxH cover thumbnails, centre gravity, in
            the same interleaved rounds on the same files: thumbd in-process (one
            worker and N, at the first --headroom), `thumbd thumbnail --size WxH
            --gravity center` and `vipsthumbnail --size WxH --smartcrop centre`
            (pinned and unrestricted), with their own ratios. Speed only: the
            quality and memory figures stay the square's.

            HEADROOM: --headroom sets ThumbnailRequest.decodeHeadroom, how many
            times the thumbnail's size the JPEG DCT-scaled decode must keep.
            thumbd's speed and SSIM are reported for each value given.

            PEAK MEMORY, ONE LARGE JPEG: for each JPEG in --large, `thumbd
            thumbnail FILE -o OUT --size N` and `vipsthumbnail FILE --size NxN
            --smartcrop centre -o OUT`, each as a child process: peak RSS from
            wait4, wall time, and thumbd's RSS over vipsthumbnail's.

            --json prints every figure as one JSON object (snake_case keys; null
            where a figure could not be measured).
            """)
    )

    @Option(help: "Folder of images to measure (JPEG, PNG, WebP; not recursive).")
    var corpus: String

    @Option(help: "Thumbnail width and height in pixels.")
    var size: Int = 200

    @Option(help: ArgumentHelp("Also time WxH cover thumbnails (centre) against vipsthumbnail --size WxH, in the same rounds.", valueName: "WxH"),
            transform: BenchShape.parse)
    var shape: BenchShape?

    @Option(help: "Timed rounds per measurement, after one warm-up round; the median round is reported.")
    var rounds: Int = 3

    @Option(name: .customLong("headroom"),
            help: "Decode headroom(s) to measure thumbd at: repeat the option or give a list (2,1). Default: 2 and 1.")
    var headroomArguments: [String] = []

    @Option(help: "Folder of large JPEGs for the peak-memory comparison (default: <corpus>/../large when it exists).")
    var large: String?

    @Flag(name: .customLong("no-large"), help: "Skip the large-JPEG peak-memory comparison.")
    var noLarge = false

    @Flag(help: "Print every figure as one JSON object instead of tables.")
    var json = false

    @Flag(name: .shortAndLong, help: "Also print SSIM per file.")
    var verbose = false

    var headrooms: [Double] {
        let values = headroomArguments.flatMap { $0.split(separator: ",") }.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        let list = values.isEmpty ? [ThumbnailRequest.defaultDecodeHeadroom, 1] : values
        return list.reduce(into: [Double]()) { if !$0.contains($1) { $0.append($1) } }
    }

    func validate() throws {
        guard ThumbnailRequest.sizeRange.contains(size) else {
            throw ValidationError("--size must be between \(ThumbnailRequest.sizeRange.lowerBound) and \(ThumbnailRequest.sizeRange.upperBound).")
        }
        guard (1...100).contains(rounds) else { throw ValidationError("--rounds must be between 1 and 100.") }
        if shape == .square(size) { throw ValidationError("--shape \(BenchShape.square(size)) is the --size square itself.") }
        for argument in headroomArguments.flatMap({ $0.split(separator: ",") }) {
            guard let value = Double(argument.trimmingCharacters(in: .whitespaces)), value > 0, value <= 64 else {
                throw ValidationError("--headroom takes positive numbers (e.g. 2 or 2,1), not '\(argument)'.")
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: corpus, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--corpus \(corpus) is not a folder.")
        }
    }

    func run() async throws {
        #if DEBUG
        FileHandle.standardError.write(Data("warning: this is a debug build; its figures mean little. Build with swift build -c release.\n".utf8))
        #endif
        var runner = BenchRunner(corpusDirectory: corpus, size: size, shape: shape, rounds: rounds, headrooms: headrooms,
                                     largeDirectory: noLarge ? nil : largeDirectory())
        let results = try await runner.run()
        if json {
            try printBenchJSON(results)
        } else {
            print(BenchReport(results: results, verbose: verbose).render(), terminator: "")
        }
    }

    private func largeDirectory() -> String? {
        if let large { return large }
        let sibling = ((corpus as NSString).deletingLastPathComponent as NSString).appendingPathComponent("large")
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: sibling, isDirectory: &isDirectory) && isDirectory.boolValue ? sibling : nil
    }
}
