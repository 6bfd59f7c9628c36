import ArgumentParser
import ChildProcess
import ConsoleText
import Foundation
import ImageCodecs
import ImageCore
import ImageQuality
import JPEGCodec
import Thumbnailer

/// `thumbd-bench progressive`: how far a progressive JPEG must be decoded for a thumbnail made at a
/// 1/4 or 1/2 DCT scale, measured as thumbd makes it: each file cut after fewer and fewer scans,
/// its thumbnail compared with the whole file's.
struct BenchProgressiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "progressive",
        abstract: "Measure thumbnails of progressive JPEGs decoded without their last scans, at 1/4 and 1/2 scale.",
        discussion: HelpText.reflowed("""
            For each progressive JPEG of the folder, and with --reencode for a progressive copy of
            each baseline one (jpegtran -progressive, libjpeg's default scan script), two centre-crop
            square thumbnails are made with thumbd's thumbnailer: one whose decode runs at a 1/4 DCT
            scale (a side of an eighth of the photo's shorter side, at the default decode headroom
            of 2) and one at 1/2 (a quarter). Each is made again from the file cut after all but
            its last 1, 2, 3... scans (the scans kept, then the end marker) and compared with the
            whole file's thumbnail by SSIM (luma). For each number of scans dropped the table
            prints the lowest and mean SSIM over the files, the share of the file's bytes kept, and
            the decode time at that scale over the whole file's (median of --repeats).
            """)
    )

    @Option(help: "Folder of photos.") var corpus = "../shared/corpora/photos"
    @Flag(inversion: .prefixedNo, help: "Add a progressive copy of each baseline JPEG (needs jpegtran).") var reencode = true
    @Option(help: "Timed decodes of each cut, their median taken.") var repeats = 3
    @Option(help: "Scratch folder for the re-encoded copies.") var scratch = "/tmp/thumbd-bench-progressive"

    struct Score { var dropped: Int; var ssim: Double; var bytesShare: Double; var timeShare: Double }

    func run() async throws {
        let files = try progressiveFiles()
        guard !files.isEmpty else { throw ValidationErrorMessage("no progressive JPEG in \(corpus) (and none re-encoded)") }
        print("thumbd-bench progressive: \(files.count) progressive JPEGs")
        for (label, eighths) in [("1/4", 2), ("1/2", 4)] {
            var scores = [Score]()
            for file in files { scores += try measure(file, eighths: eighths) }
            print("\nDecoded at \(label) scale (SSIM of the thumbnail against the whole file's):")
            print("  scans dropped   files   min SSIM   mean SSIM   bytes kept   decode time")
            for dropped in Set(scores.map(\.dropped)).sorted() {
                let row = scores.filter { $0.dropped == dropped }
                let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
                print(String(format: "  %13d   %5d   %8.4f   %9.4f   %9.0f%%   %10.0f%%", dropped, row.count, row.map(\.ssim).min() ?? 0,
                             mean(row.map(\.ssim)), 100 * mean(row.map(\.bytesShare)), 100 * mean(row.map(\.timeShare))))
            }
        }
    }

    /// The thumbnail whose decode runs at `eighths`/8, from the whole file and from each cut of it.
    private func measure(_ bytes: [UInt8], eighths: Int) throws -> [Score] {
        guard let scans = JPEGCodec.progressiveScanCount(bytes), scans > 1 else { return [] }
        let info = try ImageCodecs.readInfo(bytes)
        let upright = info.orientation.uprightSize(width: info.width, height: info.height)
        let side = min(upright.width, upright.height) * eighths / 16
        guard side >= 16 else { return [] }
        let request = ThumbnailRequest(width: side, height: side, fit: .cover, gravity: .center)
        let scale = DecodeScaleHint(minimumScale: Double(eighths) / 8)
        let whole = try Thumbnailer.render(from: bytes, request).pixels
        let wholeTime = try decodeSeconds(bytes, scale: scale)
        var scores = [Score]()
        for kept in stride(from: scans - 1, through: 1, by: -1) {
            guard let cut = JPEGCodec.firstScans(bytes, count: kept),
                  let pixels = try? Thumbnailer.render(from: cut, request).pixels,
                  pixels.width == whole.width, pixels.height == whole.height else { continue }
            scores.append(Score(dropped: scans - kept, ssim: SSIM.compare(pixels, whole), bytesShare: Double(cut.count) / Double(bytes.count),
                                timeShare: try decodeSeconds(cut, scale: scale) / wholeTime))
        }
        return scores
    }

    private func decodeSeconds(_ bytes: [UInt8], scale: DecodeScaleHint) throws -> Double {
        var times = [Double]()
        for _ in 0..<max(1, repeats) {
            let start = BenchStats.now()
            _ = try ImageCodecs.decodeAsStored(bytes, scale: scale)
            times.append(BenchStats.now() - start)
        }
        return BenchStats.median(times) ?? 1
    }

    /// The folder's progressive JPEGs, and with --reencode a progressive copy of each of its baseline ones.
    private func progressiveFiles() throws -> [[UInt8]] {
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus).sorted()
            .filter { ["jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }
        var files = [[UInt8]]()
        let reencoding = reencode && ChildProcess.isInstalled("jpegtran")
        if reencode && !reencoding { print("jpegtran not found (apt-get install libjpeg-turbo-progs): no progressive copies") }
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        for name in names {
            let path = (corpus as NSString).appendingPathComponent(name)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            if JPEGCodec.progressiveScanCount(bytes) != nil {
                files.append(bytes)
            } else if reencoding {
                let copy = (scratch as NSString).appendingPathComponent(name)
                let result = try ChildProcess.run("jpegtran", ["-progressive", "-copy", "all", "-outfile", copy, path], timeoutSeconds: 120)
                if result.status == 0, let data = try? Data(contentsOf: URL(fileURLWithPath: copy)) { files.append([UInt8](data)) }
            }
        }
        return files
    }
}
