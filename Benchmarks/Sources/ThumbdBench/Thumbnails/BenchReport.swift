import ConsoleText
import Foundation

/// The benchmark's results as aligned text tables for people.
struct BenchReport {
    var results: BenchResults
    var verbose: Bool

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    func render() -> String {
        var out: [String] = []
        out.append(header())
        out.append(speed())
        out.append(stages())
        out.append(floor())
        out.append(ratios())
        out.append(quality())
        if verbose { out.append(perFileQuality()) }
        out.append(memory())
        if !results.errors.isEmpty { out.append(errors()) }
        if !results.notes.isEmpty { out.append("Notes\n" + results.notes.map { "  - " + $0 }.joined(separator: "\n")) }
        return out.filter { !$0.isEmpty }.joined(separator: "\n\n") + "\n"
    }

    private func header() -> String {
        let r = results, s = r.settings, c = r.corpus
        let shape = r.shape.map { ", and \($0.width)x\($0.height) centre cover thumbnails (--shape; thumbd at headroom \(Self.number($0.thumbd.headroom)))" } ?? ""
        var lines = ["thumbd-bench: \(r.machine.cores) cores, \(r.machine.build) build, \(s.size)x\(s.size) centre-square thumbnails\(shape), JPEG q\(s.jpegQuality)"]
        lines.append("  every speed figure is the median of \(s.rounds) timed round\(s.rounds == 1 ? "" : "s") after \(s.warmupRounds) warm-up (best round in --json); "
            + "the tools' rounds are interleaved")
        if let start = r.machine.loadAverageAtStart, let end = r.machine.loadAverageAtEnd {
            let others = r.machine.otherLoadDuringRounds.map { "; other processes used \(TextTable.fixed($0 * 100, 0)) % of the CPU during the timed rounds" } ?? ""
            lines.append("  load average (1 min) \(TextTable.fixed(start, 2)) at start, \(TextTable.fixed(end, 2)) at end" + others)
        }
        let formats = c.formats.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        lines.append("  corpus \(c.directory): \(c.files) files, \(TextTable.fixed(c.megapixels, 1)) MP (\(formats)); JPEG: \(c.jpegFiles) files, \(TextTable.fixed(c.jpegMegapixels, 1)) MP")
        var peers: [String] = []
        peers.append("vipsthumbnail " + (r.machine.vipsVersion ?? "not installed"))
        peers.append("Pillow " + (r.machine.pillowVersion.map { $0 + (r.machine.pythonVersion.map { " (Python \($0))" } ?? "") } ?? "not available"))
        peers.append("djpeg: " + (r.machine.djpegVersion ?? "not installed"))
        lines.append("  peers: " + peers.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }

    private func throughputRow(_ name: String, _ t: BenchResults.Throughput, memory: Bool = true) -> [String] {
        [name, String(t.concurrency), TextTable.fixed(t.imagesPerSecond, 1), TextTable.fixed(t.megapixelsPerSecond, 1),
         TextTable.fixed(t.p50Ms, 1), TextTable.fixed(t.p95Ms, 1)] + (memory ? [TextTable.fixed(t.cpuMsPerImage, 1), TextTable.mebibytes(t.peakRSSBytes)] : [])
    }

    /// Lines for tools that have no figure, under a table ("vipsthumbnail: not installed (...)").
    private static func missing(_ lines: [String]) -> String {
        lines.isEmpty ? "" : "\n" + lines.map { "  " + $0 }.joined(separator: "\n")
    }

    private func speed() -> String {
        let r = results
        var rows: [[String]] = [], absent: [String] = []
        for run in r.thumbd {
            let h = Self.number(run.headroom)
            for t in [run.oneCore, run.allCores].compactMap({ $0 }) { rows.append(throughputRow("thumbd in-process, headroom \(h)", t)) }
        }
        for peer in [r.thumbdCLI, r.vips] {
            if let one = peer.oneCore { rows.append(throughputRow(peer.tool + ", taskset -c 0", one)) }
            if let all = peer.allCores { rows.append(throughputRow(peer.tool, all)) }
            if peer.oneCore == nil || peer.allCores == nil, let note = peer.note { absent.append(peer.tool + ": " + note) }
        }
        if let shape = r.shape {
            let box = "\(shape.width)x\(shape.height)"
            for t in [shape.thumbd.oneCore, shape.thumbd.allCores].compactMap({ $0 }) {
                rows.append(throughputRow("thumbd in-process \(box), headroom \(Self.number(shape.thumbd.headroom))", t))
            }
            for peer in [shape.thumbdCLI, shape.vips] {
                if let one = peer.oneCore { rows.append(throughputRow("\(peer.tool) \(box), taskset -c 0", one)) }
                if let all = peer.allCores { rows.append(throughputRow("\(peer.tool) \(box)", all)) }
            }
        }
        if let one = r.pillow.oneCore { rows.append(throughputRow("Pillow (draft + LANCZOS), in Python", one)) }
        else { absent.append("Pillow: " + (r.pillow.note ?? "not measured")) }
        let title = "Speed over all \(r.corpus.files) files: read + decode + crop/resize + JPEG q\(r.settings.jpegQuality) encode"
        let table = TextTable.render(["tool", "workers", "images/s", "MP/s", "p50 ms", "p95 ms", "CPU ms/image", "peak RSS"], rows)
        let foot = "\n  p50/p95: per-image ms over the timed rounds (under load when workers > 1); not known per image for child processes."
            + "\n  CPU ms/image: user + system CPU of every thread over the images (median round); in-process rows: this whole"
            + "\n  process; child rows: the child (start-up included). Other work on the machine moves it far less than images/s."
            + "\n  peak RSS: in-process rows are this whole bench process (VmHWM, reset before each round); child rows are the child's"
            + "\n  ru_maxrss from its warm-up run."
        return title + "\n" + table + Self.missing(absent) + foot
    }

    private func stages() -> String {
        let box = results.shape.map { ", \($0.width)x\($0.height)" } ?? ""
        let runs = results.thumbd.map { ($0, "") } + (results.shape.map { [($0.thumbd, box)] } ?? [])
        let rows: [[String]] = runs.compactMap { run, label in
            guard let s = run.meanStageMs else { return nil }
            return [Self.number(run.headroom) + label, TextTable.fixed(s.read, 2), TextTable.fixed(s.decode, 2), TextTable.fixed(s.color, 2),
                    TextTable.fixed(s.resize, 2), TextTable.fixed(s.placeholder, 2), TextTable.fixed(s.encode, 2),
                    TextTable.fixed(run.meanDecodedPixelFraction.map { $0 * 100 }, 2) + " %"]
        }
        guard !rows.isEmpty else { return "" }
        return "Where thumbd's time goes (one core, mean ms per image)\n"
            + TextTable.render(["headroom", "read", "decode", "colour", "resize", "placeholder", "encode", "decoded pixels / full"], rows)
    }

    private func floor() -> String {
        let r = results
        guard r.corpus.jpegFiles > 0 else { return "" }
        var rows: [[String]] = [], absent: [String] = []
        if let main = r.thumbd.first, let t = main.jpegOneCore {
            rows.append(throughputRow("thumbd in-process, headroom \(Self.number(main.headroom))", t, memory: false))
        }
        if let t = r.pillow.jpegOneCore { rows.append(throughputRow("Pillow (draft + LANCZOS), in Python", t, memory: false)) }
        if let t = r.floor.djpeg.oneCore { rows.append(throughputRow("djpeg -scale 1/8, one process per file", t, memory: false)) }
        else { absent.append("djpeg: " + (r.floor.djpeg.note ?? "not measured")) }
        if let t = r.floor.inProcess { rows.append(throughputRow("decode at 1/8 in-process (read + decode)", t, memory: false)) }
        return "JPEG files only (\(r.corpus.jpegFiles) of \(r.corpus.files)), one core: the floor; thumbd's and Pillow's rows are the JPEGs' share of their rounds above\n"
            + TextTable.render(["tool", "workers", "images/s", "MP/s", "p50 ms", "p95 ms"], rows) + Self.missing(absent)
    }

    private func ratios() -> String {
        let rows = results.ratios.map { ratio -> [String] in
            [ratio.name, ratio.value.map { TextTable.fixed($0, 2) + "x" } ?? "-", ratio.meaning]
        }
        return "Ratios (of images/s, measured in this run)\n" + TextTable.render(["comparison", "ratio", "meaning"], rows, left: [2])
    }

    private func qualityColumns() -> [(name: String, summary: BenchResults.SSIMSummary?, note: String?)] {
        var columns: [(name: String, summary: BenchResults.SSIMSummary?, note: String?)] = results.thumbd.map {
            ("thumbd, headroom \(Self.number($0.headroom))", $0.ssim, nil)
        }
        columns.append(("vipsthumbnail", results.vips.ssim, results.vips.installed ? nil : results.vips.note))
        columns.append(("Pillow", results.pillow.ssim, results.pillow.installed ? nil : results.pillow.note))
        return columns
    }

    private func quality() -> String {
        var absent: [String] = []
        let rows = qualityColumns().compactMap { name, summary, note -> [String]? in
            guard let summary else {
                absent.append(name + ": " + (note ?? "not measured"))
                return nil
            }
            return [name, String(summary.files), TextTable.fixed(summary.mean, 4), TextTable.fixed(summary.min, 4), summary.minFile ?? "-"]
        }
        return "Quality: SSIM against a reference (full decode, EXIF-upright, centre square, Lanczos-3 premultiplied from full size)\n"
            + TextTable.render(["tool", "files", "mean", "min", "worst file"], rows) + Self.missing(absent)
            + "\n  thumbd: pixels before encoding; peers: their lossless PNG output. 1 is identical. SSIM also counts"
            + "\n  sub-pixel shifts: a crop placed on whole output pixels (as vipsthumbnail's is) loses SSIM without blur."
    }

    private func perFileQuality() -> String {
        let columns = qualityColumns()
        let names = results.thumbd.first?.ssim?.perFile.keys.sorted() ?? []
        guard !names.isEmpty else { return "" }
        let rows = names.map { name in
            [name] + columns.map { TextTable.fixed($0.summary?.perFile[name] ?? nil, 4) }
        }
        return "SSIM per file\n" + TextTable.render(["file"] + columns.map(\.name), rows)
    }

    private func memory() -> String {
        let large = results.large
        guard let directory = large.directory else {
            return "Peak memory for one large JPEG: skipped (" + (large.note ?? "no --large folder") + ")"
        }
        func cell(_ m: BenchResults.ChildMeasure?) -> String {
            guard let m else { return "not installed" }
            if let error = m.error { return "failed (\(error))" }
            return TextTable.mebibytes(m.peakRSSBytes) + " / " + TextTable.fixed(m.wallSeconds.map { $0 * 1000 }, 0) + " ms"
        }
        let rows = large.files.map { entry in
            [entry.file, TextTable.fixed(entry.megapixels, 1), cell(entry.thumbd), cell(entry.vips), entry.rssRatio.map { TextTable.fixed($0, 2) + "x" } ?? "-"]
        }
        var text = "Peak memory for one large JPEG (\(directory)): each tool as a child process, peak RSS from wait4 / wall ms\n"
            + TextTable.render(["file", "MP", "thumbd thumbnail", "vipsthumbnail", "thumbd/vips RSS"], rows)
        if let note = large.note { text += "\n  " + note }
        return text
    }

    private func errors() -> String {
        let rows = results.errors.map { [$0.tool, $0.file, $0.code, $0.message] }
        return "Errors (\(rows.count)): files left out or not scored\n" + TextTable.render(["tool", "file", "code", "message"], rows, left: [1, 2, 3])
    }
}
