import ChildProcess
import Foundation
import Testing
import TestSupport

/// config/systemd/thumbd.service checked by systemd's own parser, and `make install-files`'s layout.
struct ServiceUnitTests {
    static let unitFile = TestPaths.packageRoot.appendingPathComponent("config/systemd/thumbd.service")
    static let installedExecStart = "ExecStart=/usr/local/bin/thumbd serve --config /etc/thumbd/thumbd.yaml"
    static let analyzeMissing = "systemd-analyze not found (apt-get install systemd): the unit check cannot run"

    /// What `systemd-analyze verify` says about `unitText`, as installed with the freshly built binary
    /// (verify insists that ExecStart's program exists). Only lines about this unit count: on a
    /// real machine verify also grumbles about unrelated units it loads as dependencies.
    static func verifyComplaints(_ unitText: String) throws -> [String] {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("thumbd.service")
        let pointedAtBuild = unitText.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.hasPrefix("ExecStart=") else { return String(line) }
            let arguments = line.dropFirst("ExecStart=".count).split(separator: " ").dropFirst()
            return (["ExecStart=" + CLI.executable] + arguments.map(String.init)).joined(separator: " ")
        }.joined(separator: "\n")
        try pointedAtBuild.write(to: file, atomically: true, encoding: .utf8)

        let result = try ChildProcess.run("systemd-analyze", ["verify", file.path], timeoutSeconds: 60)
        let lines = (result.stdoutText + result.stderrText).split(separator: "\n").map(String.init)
        let aboutThisUnit = lines.filter { $0.contains(file.path) || $0.hasPrefix("thumbd.service") }
        if result.status != 0 && aboutThisUnit.isEmpty {
            return ["systemd-analyze verify exited \(result.status)"] + lines
        }
        return aboutThisUnit
    }

    @Test(.requires(ChildProcess.isInstalled("systemd-analyze"), Comment(rawValue: analyzeMissing)))
    func unitPassesSystemdAnalyzeVerify() throws {
        let text = try String(contentsOf: Self.unitFile, encoding: .utf8)
        let complaints = try Self.verifyComplaints(text)
        #expect(complaints.isEmpty, "systemd-analyze verify:\n\(complaints.joined(separator: "\n"))")
    }

    /// verify exits 0 on an unknown key and only prints a line: proof that the check above reads those lines.
    @Test(.requires(ChildProcess.isInstalled("systemd-analyze"), Comment(rawValue: analyzeMissing)))
    func verifyCatchesAMisspelledKeyAndABadValue() throws {
        let text = try String(contentsOf: Self.unitFile, encoding: .utf8)
        let misspelled = text.replacingOccurrences(of: "\nLockPersonality=yes", with: "\nLockPersonalty=yes")
        let badValue = text.replacingOccurrences(of: "\nType=notify", with: "\nType=notfy")
        #expect(misspelled != text && badValue != text)
        #expect(try Self.verifyComplaints(misspelled).contains { $0.contains("LockPersonalty") })
        #expect(try Self.verifyComplaints(badValue).contains { $0.contains("notfy") })
    }

    /// The unit's promises that the daemon and `make install` rely on.
    @Test func unitRunsTheInstalledBinaryAsANotifyServiceWithItsCacheDirectory() throws {
        let lines = Set(try String(contentsOf: Self.unitFile, encoding: .utf8).split(separator: "\n").map(String.init))
        for expected in [Self.installedExecStart, "Type=notify", "User=thumbd", "Group=thumbd", "CacheDirectory=thumbd",
                         "Environment=THUMBD_CACHE_DIR=%C/thumbd", "KillSignal=SIGTERM", "Restart=on-failure",
                         "MemoryDenyWriteExecute=yes", "CapabilityBoundingSet="] {
            #expect(lines.contains(expected), "thumbd.service lacks \(expected)")
        }
        #expect(!lines.contains { $0.hasPrefix("ExecReload=") }, "thumbd does nothing on SIGHUP: no reload")
        #expect(!lines.contains("DynamicUser=yes"), "the package makes a thumbd user: a dynamic one would own /var/cache/private/thumbd instead")
    }

    /// The Debian package's version is thumbd's own: its changelog's last entry names BuildInfo.version.
    @Test func debianChangelogNamesThumbdsVersion() throws {
        let changelog = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("packaging/debian/changelog"), encoding: .utf8)
        let first = try #require(changelog.split(separator: "\n").first.map(String.init))
        let version = try #require(first.firstMatch(of: #/^thumbd \(([^)]+)\) /#)?.output.1, "\(first)")
        let result = try CLI.run(["--version"])
        #expect(result.stdoutText.hasPrefix("thumbd \(version) "), "changelog \(version), --version \(result.stdoutText)")
        // The install commands in the docs name the package this source builds.
        for page in ["README.md", "docs/operations.md"] {
            let text = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(page), encoding: .utf8)
            let named = Set(text.matches(of: /thumbd_([0-9][^_ ]*)_amd64\.deb/).map { String($0.output.1) })
            #expect(named == [String(version)], "\(page) names thumbd_\(named.sorted())_amd64.deb; the package is \(version)")
        }
    }

    // MARK: make install-files

    static func make(_ arguments: [String]) throws -> ChildProcessResult {
        try ChildProcess.run("make", ["-s", "-C", TestPaths.packageRoot.path] + arguments, timeoutSeconds: 120)
    }

    static func permissions(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test(.requires(ChildProcess.isInstalled("make"), "make is not installed"))
    func installFilesLaysOutTheServiceAndKeepsAnEditedConfiguration() throws {
        let root = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let install = ["install-files", "DESTDIR=\(root.path)", "PREFIX=/usr/local", "BINARY=\(CLI.executable)"]
        let first = try Self.make(install)
        #expect(first.status == 0, "\(first.stderrText)")

        let binary = root.appendingPathComponent("usr/local/bin/thumbd")
        let unit = root.appendingPathComponent("usr/local/lib/systemd/system/thumbd.service")
        let config = root.appendingPathComponent("etc/thumbd/thumbd.yaml")
        #expect(try Self.permissions(binary) == 0o755)
        #expect(try Self.permissions(unit) == 0o644)
        #expect(try Self.permissions(config) == 0o644)
        #expect(FileManager.default.contentsEqual(atPath: binary.path, andPath: CLI.executable))
        #expect(FileManager.default.contentsEqual(atPath: config.path,
                                                  andPath: TestPaths.packageRoot.appendingPathComponent("config/thumbd.yaml").path))
        let unitLines = try String(contentsOf: unit, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(unitLines.filter { $0.hasPrefix("ExecStart=") } == [Self.installedExecStart])

        let edited = "server:\n  listen: 0.0.0.0:9000\n"
        try edited.write(to: config, atomically: true, encoding: .utf8)
        let second = try Self.make(install)
        #expect(second.status == 0, "\(second.stderrText)")
        #expect(try String(contentsOf: config, encoding: .utf8) == edited)

        let uninstall = try Self.make(["uninstall", "DESTDIR=\(root.path)", "PREFIX=/usr/local"])
        #expect(uninstall.status == 0, "\(uninstall.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: binary.path))
        #expect(!FileManager.default.fileExists(atPath: unit.path))
        #expect(try String(contentsOf: config, encoding: .utf8) == edited, "uninstall leaves the operator's settings")
    }

    /// Another prefix: the installed unit must name where the binary and the settings really went.
    @Test(.requires(ChildProcess.isInstalled("make"), "make is not installed"))
    func installFilesRewritesTheUnitsPathsForAnotherPrefix() throws {
        let root = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try Self.make(["install-files", "DESTDIR=\(root.path)", "PREFIX=/opt/thumbd",
                                    "SYSCONFDIR=/opt/thumbd/etc", "BINARY=\(CLI.executable)"])
        #expect(result.status == 0, "\(result.stderrText)")
        let unit = root.appendingPathComponent("opt/thumbd/lib/systemd/system/thumbd.service")
        let lines = try String(contentsOf: unit, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("ExecStart=") }
                == ["ExecStart=/opt/thumbd/bin/thumbd serve --config /opt/thumbd/etc/thumbd/thumbd.yaml"])
        #expect(lines.contains("EnvironmentFile=-/opt/thumbd/etc/thumbd/thumbd.env"))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("opt/thumbd/bin/thumbd").path))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("opt/thumbd/etc/thumbd/thumbd.yaml").path))
    }
}
