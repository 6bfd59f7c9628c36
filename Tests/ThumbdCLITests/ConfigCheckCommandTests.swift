import ChildProcess
import Foundation
import Testing
import TestSupport

/// `thumbd config check` as an operator runs it before a restart, and `thumbd serve` refusing the
/// same mistakes: a mistyped key or variable, by name, with exit 2.
struct ConfigCheckCommandTests {
    struct Row: Decodable { let key: String; let value: String; let source: String }
    struct Output: Decodable { let valid: Bool; let problems: [String]; let settings: [Row] }

    static func thumbd(_ environment: [String], _ arguments: [String]) throws -> ChildProcessResult {
        try ChildProcess.run("env", ["-i", "HOME=/tmp", "PATH=/usr/bin:/bin"] + environment + [CLI.executable] + arguments, timeoutSeconds: 60)
    }

    @Test func everySettingWithItsSourceAndNoSecret() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("thumbd.yaml")
        try """
            server:
              signing_key: file-secret-5f2a
            download:
              timeout: 12
            """.write(to: file, atomically: true, encoding: .utf8)
        let environment = ["THUMBD_CACHE_DISK_MAX_MIB=4096", "THUMBD_ADMIN_TOKEN=env-secret-9c1d",
                           "THUMBD_CACHE_DIR=\(folder.appendingPathComponent("cache").path)"]
        let json = try Self.thumbd(environment, ["config", "check", "--config", file.path, "--json"])
        #expect(json.status == 0, "\(json.stderrText)")
        let output = try JSONDecoder().decode(Output.self, from: Data(json.stdout))
        #expect(output.valid && output.problems.isEmpty)
        let rows = Dictionary(uniqueKeysWithValues: output.settings.map { ($0.key, $0) })
        #expect(rows["cache.disk_max_mib"]?.value == "4096" && rows["cache.disk_max_mib"]?.source == "THUMBD_CACHE_DISK_MAX_MIB")
        #expect(rows["download.timeout"]?.value == "12" && rows["download.timeout"]?.source == "\(file.path):4")
        #expect(rows["server.listen"]?.value == "127.0.0.1:8080" && rows["server.listen"]?.source == "default")
        #expect(rows["server.admin_token"]?.source == "THUMBD_ADMIN_TOKEN" && rows["server.admin_token"]?.value == "******** (set)")
        #expect(rows["server.signing_key"]?.source == "\(file.path):2" && rows["server.signing_key"]?.value == "******** (set)")
        #expect(rows["cache.dir"]?.value == folder.appendingPathComponent("cache").path && rows["cache.dir"]?.source == "THUMBD_CACHE_DIR")
        #expect(rows["uploads.budget"]?.value == "300 KiB" && rows["uploads.budget"]?.source == "default")

        let table = try Self.thumbd(environment, ["config", "check", "--config", file.path])
        #expect(table.status == 0)
        #expect(table.stdoutText.contains("ok: thumbd serve would start with these settings"))
        for text in [json.stdoutText, table.stdoutText, table.stderrText] {
            #expect(!text.contains("file-secret-5f2a") && !text.contains("env-secret-9c1d"))
        }
    }

    /// The issue's cases: the YAML typo and the variable typo stop `config check` and `serve` alike.
    @Test func aMistypedKeyOrVariableStopsCheckAndServeByName() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("thumbd.yaml")
        try "cache:\n  disk_max_gib: 5\n".write(to: file, atomically: true, encoding: .utf8)
        let cache = "THUMBD_CACHE_DIR=\(folder.appendingPathComponent("cache").path)"
        for command in [["config", "check"], ["serve"]] {
            let fromFile = try Self.thumbd([cache, "THUMBD_LISTEN=127.0.0.1:0"], command + ["--config", file.path])
            #expect(fromFile.status == 2, "\(command): \(fromFile.stderrText)")
            #expect(fromFile.stderrText.contains("cache.disk_max_gib in \(file.path), line 2: no such key; did you mean cache.disk_max_mib?"),
                    "\(fromFile.stderrText)")
            let fromVariable = try Self.thumbd([cache, "THUMBD_LISTEN=127.0.0.1:0", "THUMBD_CACHE_DISK_MAX_GIB=500"], command)
            #expect(fromVariable.status == 2, "\(command): \(fromVariable.stderrText)")
            #expect(fromVariable.stderrText.contains("THUMBD_CACHE_DISK_MAX_GIB in the environment: no such setting; did you mean THUMBD_CACHE_DISK_MAX_MIB?"),
                    "\(fromVariable.stderrText)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("cache").path), "nothing is opened before the refusal")
    }

    @Test func aCacheDirectoryThatCannotBeMadeOrABadValueExitsTwo() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let aFile = folder.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: aFile)
        let blocked = try Self.thumbd(["THUMBD_CACHE_DIR=\(aFile.path)/cache"], ["config", "check"])
        #expect(blocked.status == 2)
        #expect(blocked.stderrText.contains("the cache directory (cache.dir): \(aFile.path) is a file, not a folder"), "\(blocked.stderrText)")

        let badValue = try Self.thumbd(["THUMBD_CACHE_DIR=\(folder.path)/cache", "THUMBD_DOWNLOAD_TIMEOUT=soon"], ["config", "check"])
        #expect(badValue.status == 2)
        #expect(badValue.stderrText.contains("download.timeout"), "\(badValue.stderrText)")
    }
}
