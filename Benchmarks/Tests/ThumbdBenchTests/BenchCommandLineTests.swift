import ChildProcess
import Testing
import TestSupport

/// The benchmarks are a program of their own: thumbd-bench has every one of them, with thumbd's
/// exit statuses, and the thumbd that ships has none.
@Suite struct BenchCommandLineTests {
    @Test func helpNamesEveryBenchmark() throws {
        let result = try BenchCLI.run(["--help"])
        #expect(result.status == 0, "\(result.stderrText)")
        let help = result.stdoutText
        #expect(help.contains("USAGE: thumbd-bench"), "\(help)")
        for subcommand in ["thumbnails", "cache", "serve", "fleet", "prefetch", "prepare", "ui", "crop", "crash", "soak", "misses"] {
            #expect(help.contains("  \(subcommand) "), "--help does not list \(subcommand)")
        }
    }

    /// Each page's prose wraps evenly: no line cut to a stub (see `HelpText.reflowed`).
    @Test func noHelpPageHasStubLines() throws {
        for command in try HelpPages.commands(of: BenchCLI.executable) {
            let stubs = HelpPages.stubLines(in: try HelpPages.page(of: BenchCLI.executable, command))
            #expect(stubs.isEmpty, "thumbd-bench \(command.joined(separator: " ")) --help: \(stubs)")
        }
    }

    @Test func aUsageErrorExitsTwo() throws {
        let result = try BenchCLI.run(["cache", "--entries", "10"])
        #expect(result.status == 2, "\(result.stderrText)")
        #expect(result.stderrText.contains("--entries must be at least 1000"), "\(result.stderrText)")
        let misses = try BenchCLI.run(["misses", "--shape", "300x"])
        #expect(misses.status == 2, "\(misses.stderrText)")
        #expect(misses.stderrText.contains("--shape must be WxH"), "\(misses.stderrText)")
    }

    @Test func thumbdHasNoBenchCommand() throws {
        let thumbd = TestPaths.builtProduct("thumbd")
        let help = try ChildProcess.run(thumbd, ["--help"], timeoutSeconds: 60)
        #expect(help.status == 0, "\(help.stderrText)")
        #expect(!help.stdoutText.contains("bench"), "\(help.stdoutText)")
        let bench = try ChildProcess.run(thumbd, ["bench", "cache"], timeoutSeconds: 60)
        #expect(bench.status == 2, "thumbd bench answered: \(bench.stdoutText)")
        #expect(bench.stderrText.contains("unexpected arguments: 'bench'"), "\(bench.stderrText)")
    }
}
