import Testing

/// `thumbd-bench crash` without running it: its help teaches every check it makes, and its options
/// are checked. (The rounds themselves: CrashRoundTests.)
@Suite struct BenchCrashCommandTests {
    @Test func helpExplainsEveryCheck() throws {
        let result = try BenchCLI.run(["crash", "--help"])
        #expect(result.status == 0, "\(result.stderrText)")
        let help = result.stdoutText
        for text in ["SIGKILL", "EACH ROUND", "AFTER EACH RESTART", "thumbd cache verify", "orphan", "torn", "still cached", "absent",
                     "/readyz", "--rounds", "--seed", "--min-load", "--max-load", "--connections", "--json", "--keep", "Exit status 1"] {
            #expect(help.contains(text), "--help does not mention \(text)")
        }
    }

    @Test func badOptionsAreRefused() throws {
        for arguments in [["--rounds", "0"], ["--min-load", "2", "--max-load", "1"], ["--min-load", "0"], ["--connections", "0"]] {
            let result = try BenchCLI.run(["crash"] + arguments)
            #expect(result.status == 2, "\(arguments) was accepted: \(result.stderrText)")
            #expect(result.stderrText.contains("--"), "\(arguments): \(result.stderrText)")
        }
    }

    @Test func aMissingCorpusIsASkipNotAFailure() throws {
        let result = try BenchCLI.run(["crash", "--corpus", "/nonexistent/thumbd-bench-crash"])
        #expect(result.status == 0)
        #expect(result.stderrText.contains("skipped"))
    }
}
