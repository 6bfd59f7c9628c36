import ChildProcess
import Foundation
import ImageCodecs
import InputFiles

/// Peak memory of one thumbnail from one large JPEG: thumbd's CLI and vipsthumbnail each run as a
/// child process on the file alone, and the kernel's count of the child's peak resident set
/// (wait4's ru_maxrss) is compared.
struct BenchMemory: Sendable {
    var size: Int
    var scratch: BenchScratch
    var executable: String?

    /// Every JPEG (by content) directly in `directory`.
    static func jpegs(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory).sorted()) ?? []
        return names.map { (directory as NSString).appendingPathComponent($0) }.filter { path in
            guard let handle = FileHandle(forReadingAtPath: path) else { return false }
            defer { try? handle.close() }
            let head = [UInt8](handle.readData(ofLength: 3))
            return head == [0xFF, 0xD8, 0xFF]
        }
    }

    func measure(directory: String) -> BenchResults.LargeResult {
        var result = BenchResults.LargeResult(directory: directory)
        let files = Self.jpegs(in: directory)
        if files.isEmpty {
            result.note = "no JPEG files in \(directory)"
            return result
        }
        let vipsInstalled = ChildProcess.isInstalled("vipsthumbnail")
        if !vipsInstalled { result.note = "vipsthumbnail " + BenchPeers.installHint }
        for path in files {
            var entry = BenchResults.LargeEntry(file: (path as NSString).lastPathComponent)
            if let bytes = try? InputFile.read(path), let info = try? ImageCodecs.readInfo(bytes) {
                entry.megapixels = Double(info.width) * Double(info.height) / 1e6
            }
            let out = (scratch.root as NSString).appendingPathComponent("large-out.jpg")
            if let executable {
                entry.thumbd = Self.child(executable, ["thumbnail", path, "-o", out, "--size", String(size), "--quiet"])
            } else {
                entry.thumbd.error = ThumbdExecutable.missing
            }
            if vipsInstalled {
                entry.vips = Self.child("vipsthumbnail", [path, "--size", "\(size)x\(size)", "--smartcrop", "centre", "-o", out])
            }
            if let mine = entry.thumbd.peakRSSBytes, let theirs = entry.vips?.peakRSSBytes, theirs > 0,
               entry.thumbd.error == nil, entry.vips?.error == nil {
                entry.rssRatio = Double(mine) / Double(theirs)
            }
            result.files.append(entry)
        }
        return result
    }

    static func child(_ program: String, _ arguments: [String]) -> BenchResults.ChildMeasure {
        do {
            let spawner = BenchStats.shrinkAndResetPeakRSS()
            let run = try ChildProcess.run(program, arguments, timeoutSeconds: BenchPeers.timeoutSeconds)
            var measure = BenchResults.ChildMeasure(peakRSSBytes: run.maxRSSBytes, wallSeconds: run.wallSeconds,
                                                    status: run.status, spawnerRSSBytes: spawner)
            if run.status != 0 {
                let why = run.stderrText.split(separator: "\n").last.map(String.init) ?? ""
                measure.error = "exit status \(run.status)" + (why.isEmpty ? "" : ": " + why)
            }
            return measure
        } catch {
            return BenchResults.ChildMeasure(error: "\(error)")
        }
    }
}
