import Foundation
import Testing
import TestSupport
import ThumbdFuzzTargets

/// Every input a fuzz target found a bug with, kept in TestImages/fuzz-regressions/TARGET/, run
/// through that target again (Fuzz/README.md): a broken promise fails here, a crash ends the run.
struct FuzzRegressionTests {
    static let folder = TestPaths.testImages.appendingPathComponent("fuzz-regressions")

    static var inputs: [String] {
        let manager = FileManager.default
        let targets = (try? manager.contentsOfDirectory(atPath: folder.path)) ?? []
        return targets.sorted().flatMap { target in
            let files = (try? manager.contentsOfDirectory(atPath: folder.appendingPathComponent(target).path)) ?? []
            return files.sorted().map { "\(target)/\($0)" }
        }
    }

    @Test("a fuzz regression input runs clean through its target", arguments: inputs)
    func replays(_ input: String) throws {
        let name = String(input.prefix { $0 != "/" })
        let target = try #require(FuzzTarget(rawValue: name), "fuzz-regressions/\(name) is not named after a fuzz target")
        let data = try Data(contentsOf: Self.folder.appendingPathComponent(input))
        do {
            try target.run([UInt8](data))
        } catch {
            Issue.record("\(input): \(error)")
        }
    }

    @Test func thereAreRegressionInputs() {
        #expect(!Self.inputs.isEmpty, "no files under \(Self.folder.path)")
    }
}
