import ChildProcess
import Foundation

/// The soak's samples as an SVG of small multiples over time, drawn by gnuplot (Debian's
/// gnuplot-nox, its svg terminal) from the CSV and a script written beside it: plotting is
/// gnuplot's job, done well, rather than SVG drawn by hand here.
enum BenchSoakChart {
    static let installHint = "apt-get install gnuplot-nox (or make bench-deps)"

    enum Outcome: Equatable {
        case written
        /// Why there is no chart, and how to get one.
        case skipped(String)
    }

    /// A gnuplot string literal: single quotes, a quote inside doubled.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Six panels against minutes: RSS, open descriptors, threads and CPU, the cache tiers, hit
    /// latency with the 5 ms target, and the load's rates.
    static func script(csv: String, svg: String, title: String, hitTargetMs: Double) -> String {
        let data = quoted(csv)
        func x() -> String { "($1/60)" }
        func col(_ name: String) -> String { "(column(\(quoted(name))))" }
        return """
            set terminal svg size 1200,1000 dynamic font 'sans,11'
            set output \(quoted(svg))
            set datafile separator ','
            set datafile columnheaders
            set datafile missing ''
            set key top left opaque
            set grid
            set xlabel 'minutes'
            set xrange [0:*]
            # Headroom above each curve for the key, and so a flat line does not lie on the frame.
            set offsets 0, 0, graph 0.3, 0
            # The same margins in every panel, with or without a right axis, so the time axes line up.
            set lmargin 9
            set rmargin 9
            set multiplot layout 3,2 title \(quoted(title))

            set title 'daemon memory (MiB)'
            set yrange [0:*]
            plot \(data) using \(x()):\(col("rss_mib")) with lines lw 2 title 'VmRSS', \\
                 \(data) using \(x()):\(col("heap_in_use_mib")) with lines dt 2 title 'malloc in use', \\
                 \(data) using \(x()):\(col("heap_free_mib")) with lines dt 3 title 'malloc free'

            set title 'open file descriptors'
            plot \(data) using \(x()):\(col("open_fds")) with lines lw 2 title '/proc/PID/fd'

            set title 'threads (left), CPU in cores (right)'
            set y2tics
            set y2range [0:1<*]
            plot \(data) using \(x()):\(col("threads")) with lines lw 2 title 'Threads', \\
                 \(data) using \(x()):\(col("daemon_cores")) axes x1y2 with lines dt 2 title 'thumbd cores', \\
                 \(data) using \(x()):\(col("load_cores")) axes x1y2 with lines dt 2 title 'load cores', \\
                 \(data) using \(x()):\(col("others_cores")) axes x1y2 with lines dt 3 title 'other processes'
            unset y2tics

            set title 'cache: entries (left), MiB (right)'
            set y2tics
            plot \(data) using \(x()):\(col("memory_entries")) with lines lw 2 title 'memory entries', \\
                 \(data) using \(x()):\(col("disk_entries")) with lines lw 2 title 'disk entries', \\
                 \(data) using \(x()):\(col("memory_mib")) axes x1y2 with lines dt 2 title 'memory MiB', \\
                 \(data) using \(x()):\(col("disk_mib")) axes x1y2 with lines dt 2 title 'disk MiB', \\
                 \(data) using \(x()):\(col("originals_mib")) axes x1y2 with lines dt 3 title 'originals MiB'
            unset y2tics

            set title 'hit latency per window (ms)'
            plot \(data) using \(x()):\(col("hit_p50_ms")) with linespoints pt 7 ps 0.4 title 'p50', \\
                 \(data) using \(x()):\(col("hit_p99_ms")) with linespoints pt 7 ps 0.4 lw 2 title 'p99', \\
                 \(hitTargetMs) with lines dt 2 lc rgb 'red' title 'target: p99 < \(String(format: "%g", hitTargetMs)) ms'

            set title 'load per window'
            set y2tics
            plot \(data) using \(x()):\(col("requests_per_s")) with lines lw 2 title 'requests/s', \\
                 \(data) using \(x()):\(col("evictions_per_s")) with lines lw 2 title 'evictions/s', \\
                 \(data) using \(x()):\(col("errors")) axes x1y2 with impulses lw 3 lc rgb 'red' title 'errors (right)'
            unset multiplot

            """
    }

    /// Writes `svg` from `csv` with gnuplot (its script beside the CSV), or says why not.
    static func draw(csv: String, svg: String, title: String, hitTargetMs: Double) -> Outcome {
        let scriptFile = scriptPath(csv)
        do {
            // Written first, so that without gnuplot the chart is one command away.
            try script(csv: csv, svg: svg, title: title, hitTargetMs: hitTargetMs).write(toFile: scriptFile, atomically: true, encoding: .utf8)
            guard let gnuplot = BenchProc.which("gnuplot") else {
                return .skipped("gnuplot is not installed (\(installHint)); then `gnuplot \(scriptFile)` draws it from the CSV")
            }
            let run = try ChildProcess.run(gnuplot, [scriptFile], timeoutSeconds: 60)
            guard run.status == 0, FileManager.default.fileExists(atPath: svg) else {
                return .skipped("gnuplot failed (status \(run.status)): \(run.stderrText.prefix(300))")
            }
            return .written
        } catch {
            return .skipped("gnuplot could not be run: \(error)")
        }
    }

    /// soak.csv -> soak.gp
    static func scriptPath(_ csv: String) -> String {
        ((csv as NSString).deletingPathExtension as NSString).appendingPathExtension("gp") ?? csv + ".gp"
    }
}
