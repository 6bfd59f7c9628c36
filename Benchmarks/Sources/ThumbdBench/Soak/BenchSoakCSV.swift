import Foundation

/// The soak's samples as CSV, one row per sample: what the chart is drawn from, and what a reader
/// can load into anything else. Sizes in MiB and latencies in ms, as the chart shows them; a value
/// that could not be read is an empty field.
enum BenchSoakCSV {
    /// Column names (the chart's gnuplot script refers to them) and how each is read from a sample.
    static let columns: [(name: String, value: @Sendable (BenchSoakSample) -> Double?)] = [
        ("seconds", { $0.seconds }),
        ("rss_mib", { $0.rssBytes.map { Double($0) / 1_048_576 } }),
        ("open_fds", { $0.openFiles.map(Double.init) }),
        ("threads", { $0.threads.map(Double.init) }),
        ("heap_in_use_mib", { $0.heapInUseBytes.map { $0 / 1_048_576 } }),
        ("heap_free_mib", { $0.heapFreeBytes.map { $0 / 1_048_576 } }),
        ("memory_entries", { $0.memoryEntries }),
        ("memory_mib", { $0.memoryBytes.map { $0 / 1_048_576 } }),
        ("disk_entries", { $0.diskEntries }),
        ("disk_mib", { $0.diskBytes.map { $0 / 1_048_576 } }),
        ("originals_entries", { $0.originalsEntries }),
        ("originals_mib", { $0.originalsBytes.map { $0 / 1_048_576 } }),
        ("evictions", { $0.evictions }),
        ("evictions_per_s", { $0.evictionsPerSecond }),
        ("cache_hits", { $0.cacheHits }),
        ("cache_misses", { $0.cacheMisses }),
        ("requests_per_s", { $0.requestsPerSecond }),
        ("hits", { Double($0.hits) }),
        ("hit_p50_ms", { $0.hitP50Ms }),
        ("hit_p99_ms", { $0.hitP99Ms }),
        ("errors", { Double($0.errors) }),
        ("daemon_cores", { $0.daemonCores }),
        ("load_cores", { $0.loadCores }),
        ("others_cores", { $0.othersCores }),
    ]

    static func text(_ samples: [BenchSoakSample]) -> String {
        var lines = [columns.map(\.name).joined(separator: ",")]
        for sample in samples {
            lines.append(columns.map { column in column.value(sample).map(format) ?? "" }.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whole numbers without a fraction, others with up to 4 decimals.
    private static func format(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
        return String(format: "%.4f", value)
    }

    static func write(_ samples: [BenchSoakSample], to path: String) throws {
        try text(samples).write(toFile: path, atomically: true, encoding: .utf8)
    }
}
