import Foundation
import Testing
import TestSupport

/// Docs that cannot drift: each fact a page repeats is checked against the file that decides it,
/// and every pointer from one file to another must still lead somewhere. A failure names the file
/// and line, or the target or package, that is missing.
@Suite struct DocsDriftTests {
    @Test func architectureNamesEveryTarget() throws {
        let targets = try RepositoryFacts.targetNames()
        #expect(targets.contains("BuildInfoPlugin") && targets.contains("CTIFF"), "dump-package listed \(targets)")
        let architecture = try RepositoryFacts.text("ARCHITECTURE.md")
        for target in targets where !architecture.contains("`\(target)`") {
            Issue.record("ARCHITECTURE.md does not name the target `\(target)` of Package.swift: add it (in backticks) with what it is for")
        }
    }

    /// The benchmarks are a package of their own (Benchmarks/): thumbd's build compiles none of them.
    @Test func productPackageNamesNoBenchmarkTarget() throws {
        let targets = try RepositoryFacts.targetNames()
        #expect(!targets.isEmpty)
        for target in targets where target.localizedCaseInsensitiveContains("bench") {
            Issue.record("Package.swift names the target `\(target)`: benchmarks belong in Benchmarks/Package.swift")
        }
        let benchmarks = try RepositoryFacts.text("Benchmarks/Package.swift")
        #expect(benchmarks.contains("name: \"ThumbdBench\"") && benchmarks.contains("name: \"ThumbdBenchTests\""))
    }

    @Test func readmeListsTheMakefilesBuildPackages() throws {
        let packages = try RepositoryFacts.buildPackages()
        #expect(packages.count >= 10, "BUILD_PACKAGES read as \(packages)")
        guard let list = try RepositoryFacts.readmePackageList(naming: packages) else {
            Issue.record("README.md has no parenthesised list of `packages` naming any of the Makefile's BUILD_PACKAGES (\(packages.joined(separator: " ")))")
            return
        }
        for package in packages where !list.packages.contains(package) {
            Issue.record("README.md:\(list.line): the list of system packages lacks `\(package)`, which the Makefile's BUILD_PACKAGES installs")
        }
        for package in list.packages where !packages.contains(package) {
            Issue.record("README.md:\(list.line): the list of system packages names `\(package)`, which is not in the Makefile's BUILD_PACKAGES")
        }
    }

    /// Links and textual pointers in the pages, config/ and the Swift comments: see DocPointers.
    @Test func everyPointerLeadsToAFileAndHeading() throws {
        let files = DocPointers.files()
        #expect(files.contains("config/nginx/thumbd.conf") && files.contains("ARCHITECTURE.md") && files.count > 300,
                "scanned only \(files.count) files")
        var checked = 0
        for file in files {
            for pointer in try DocPointers.pointers(inFile: file) {
                checked += 1
                if let problem = DocPointers.problem(pointer) { Issue.record("\(pointer.file):\(pointer.line): \(problem)") }
            }
        }
        #expect(checked > 150, "only \(checked) pointers found")
    }

    /// The reader finds every style the repository writes, and a stale one fails.
    @Test func pointerReaderFindsEveryStyle() throws {
        // Put together at run time: this file's own scan would read the stale sample as its comment.
        let marker = "/" + "/"
        let swift = """
            let a = 1  \(marker) see README "Decode at the size you need" for why
            \(marker)/ for a node behind nginx (docs/operations.md,
            \(marker)/ "A fleet behind nginx"); docs/variant.md#refusals, README#run-it
            """
        let pointers = DocPointers.passages(of: swift, kind: .swiftComments).flatMap { DocPointers.pointers(in: $0, file: "Sources/X.swift") }
        #expect(pointers.map(\.path) == ["README", "docs/operations.md", "docs/variant.md", "README"])
        #expect(pointers.map(\.line) == [1, 2, 3, 3])
        #expect(pointers.map(\.heading) == ["Decode at the size you need", "A fleet behind nginx", "refusals", "run-it"])
        #expect(DocPointers.problem(pointers[0])?.contains("README.md has no heading \"Decode at the size you need\"") == true)
        #expect(pointers.dropFirst().allSatisfy { DocPointers.problem($0) == nil })

        let config = "server 1;  # each node must be back first (README: rolling restarts).\n# [the unit](systemd/nope.service)"
        let found = DocPointers.passages(of: config, kind: .hashComments).flatMap { DocPointers.pointers(in: $0, file: "config/x.conf") }
        #expect(found.map(\.written) == ["(systemd/nope.service)", "README: rolling restarts)"])
        #expect(found.allSatisfy { DocPointers.problem($0) != nil })
    }

    @Test func cliLinksTheVariantGrammarInsteadOfCopyingIt() throws {
        let variant = try RepositoryFacts.variantNames()
        #expect(variant.isSuperset(of: ["size", "--size", "fit", "--fit", "format", "q", "--quality"]), "docs/variant.md's table read as \(variant.sorted())")
        let cli = try RepositoryFacts.text("docs/cli.md")
        for (index, line) in cli.components(separatedBy: "\n").enumerated() {
            guard let first = RepositoryFacts.tableCells(line).first else { continue }
            let named = RepositoryFacts.codeSpans(in: first).compactMap { $0.split(whereSeparator: { " =,".contains($0) }).first.map(String.init) }
            if let repeated = named.first(where: variant.contains) {
                Issue.record("docs/cli.md:\(index + 1): a table row for the variant's `\(repeated)`, which docs/variant.md's table defines: link it instead")
            }
        }
        #expect(cli.contains("](variant.md)") || cli.contains("](variant.md#"), "docs/cli.md does not link the variant grammar, docs/variant.md")
    }

    /// The running log went to git's history; the page keeps what holds now.
    @Test func benchmarksPageHoldsCurrentFiguresOnly() throws {
        let lines = try RepositoryFacts.text("docs/benchmarks.md").components(separatedBy: "\n")
        let count = lines.last == "" ? lines.count - 1 : lines.count
        #expect(count <= 300, "docs/benchmarks.md has \(count) lines, over 300: keep each benchmark's newest figures and its command")
        var section: (line: Int, title: String, hasCommand: Bool)?
        for (index, line) in (lines + ["## end"]).enumerated() where line.hasPrefix("## ") || line.hasPrefix("```sh") {
            if line.hasPrefix("```sh") { section?.hasCommand = true; continue }
            if let previous = section, !previous.hasCommand {
                Issue.record("docs/benchmarks.md:\(previous.line): \"\(previous.title)\" shows no command (a ```sh block) that measures it")
            }
            section = (index + 1, String(line.dropFirst(3)), false)
        }
    }
}
