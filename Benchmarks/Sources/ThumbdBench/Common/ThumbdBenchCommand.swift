import ArgumentParser
import ChildProcess
import ExitStatus
import HeapTuning

/// `thumbd-bench`: the benchmarks that check thumbd's speed, memory and quality targets, each
/// printing ratios against peers measured in the same run. A program of its own, so the thumbd
/// that ships carries none of them; it runs the thumbd built beside it for the figures that need
/// the real CLI or daemon.
@main
struct ThumbdBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbd-bench",
        abstract: "Measure thumbd against its targets and peers (thumbnails by default, or crops, the cache, serving, a fleet, crashes, a long soak).",
        subcommands: [BenchThumbnailsCommand.self, BenchFormatsCommand.self, BenchCropCommand.self, BenchCacheCommand.self, BenchServeCommand.self, BenchFleetCommand.self, BenchPrefetchCommand.self, BenchPrepareCommand.self, BenchUICommand.self, BenchCrashCommand.self, BenchSoakCommand.self, BenchSharedCommand.self, BenchSizesCommand.self, BenchProgressiveCommand.self, BenchMissesCommand.self],
        defaultSubcommand: BenchThumbnailsCommand.self
    )

    /// Usage errors exit 2, as they did under `thumbd-bench`. Stopped by a signal, the bench stops
    /// the daemons, origins and load generators it started and removes its scratch folders.
    static func main() async {
        Termination.stopChildrenOnSignals()
        // thumbd made in this process reuses its buffers as the daemon and `thumbd thumbnail` do.
        AllocatorTuning.apply()
        await runExitingTwoOnUsageErrors()
    }
}
