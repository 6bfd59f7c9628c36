import Foundation
import ThumbPipeline

/// Progress on standard error: a live bar on a terminal, plain lines (at most one a second)
/// otherwise, and a summary at the end.
struct PrefetchProgress {
    let interactive = isatty(STDERR_FILENO) == 1
    private var lastLine = ContinuousClock.now - .seconds(10)
    private var lastText = ""

    mutating func show(_ status: PrefetchStatus) {
        let finished = status.done + status.alreadyCached + status.failed + status.cancelled
        let rate = status.elapsedSeconds > 0 ? Double(finished) / status.elapsedSeconds : 0
        let remaining = max(0, status.total - finished)
        let eta = rate > 0 ? "\(Int((Double(remaining) / rate).rounded(.up))) s" : "-"
        let counts = "\(finished)/\(status.total)  \(String(format: "%.1f", rate))/s  failed \(status.failed)"
            + (status.alreadyCached > 0 ? "  cached \(status.alreadyCached)" : "")
        if interactive {
            let width = 30
            let filled = status.total > 0 ? width * finished / status.total : 0
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            write("\r\u{1B}[2K[\(bar)] \(counts)  ETA \(eta)")
        } else {
            let text = "prefetch \(status.id): \(counts), ETA \(eta)"
            guard text != lastText, ContinuousClock.now - lastLine >= .seconds(1) else { return }
            lastText = text
            lastLine = ContinuousClock.now
            write(text + "\n")
        }
    }

    /// `sizes`: the job's sizes of each photo; with several, the counts are thumbnails.
    func summary(_ status: PrefetchStatus, where label: String, sizes: Int = 1) {
        if interactive { write("\n") }
        let what = sizes > 1 ? "\(status.total) thumbnails (\(sizes) sizes of each URL)" : "\(status.total) URLs"
        var lines = ["prefetch \(status.id) \(status.state.rawValue) in \(String(format: "%.1f", status.elapsedSeconds)) s on \(label):",
                     "  \(what): \(status.done) made, \(status.alreadyCached) already cached, \(status.failed) failed"
                         + (status.cancelled > 0 ? ", \(status.cancelled) cancelled" : "")
                         + ", \(status.bytes) bytes"]
        if status.pagesFetched > 0 { lines.append("  \(status.pagesFetched) pages fetched") }
        for failure in status.failures { lines.append("  failed: \(failure.url): \(failure.code): \(failure.message)") }
        write(lines.joined(separator: "\n") + "\n")
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
