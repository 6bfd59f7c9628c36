import Foundation
import GRDB
import ThumbCache

/// What a cache directory holds after a restart, checked from outside the daemon and without
/// ThumbCache's own reading code: the index read with SQLite (read-only, beside the running owner),
/// every file hashed here.
struct CrashDirectoryFindings: Sendable, Codable {
    /// Index rows.
    var rows = 0
    /// Rows whose file is missing, or whose size or SHA-256 is not the row's.
    var rowProblems: [String] = []
    /// Files a recovered directory must not hold (see `CrashDirectoryCheck`).
    var orphans: [String] = []
    /// Keys answered 200 so far in the run, and what became of each.
    var answersChecked = 0
    var stillCached = 0
    var absent = 0
    /// Answered keys the index still lists whose file is not byte for byte a body answered for them.
    var torn: [String] = []
    /// Whether the owner gave up on the index and rebuilt it from the files (index.sqlite.broken).
    var indexRebuilt = false

    var isClean: Bool { rowProblems.isEmpty && orphans.isEmpty && torn.isEmpty }
}

/// Checks a cache directory that an owner has opened (so recovered) and that no request is
/// changing.
///
/// After recovery (ThumbCache's `DiskRecovery`, which the daemon runs in the background: the
/// caller waits for `thumbd_cache_repair_progress_ratio` 1; unfinished writes in tmp/ removed, rows
/// without a file dropped, files without a row removed, and any other name removed) and with
/// nothing in flight, the directory holds exactly, for each index row, `objects/ab/<digest>` (and
/// an older format's `<digest>.meta`), and nothing else under `objects/` or in `tmp/`. So an orphan
/// is: a file or a sidecar whose digest has no row; any other name under `objects/` (or a folder
/// that is not a fan-out folder); anything in `tmp/`.
enum CrashDirectoryCheck {
    struct Outcome {
        var findings: CrashDirectoryFindings
        /// The answered keys whose file is whole, for the check over HTTP.
        var stillCached: [CrashAnswers.Answered]
    }

    private struct Row {
        var digest: String
        var url: String
        var variant: String
        var size: Int
        var sha256: String
    }

    static func check(directory: String, answers: [CrashAnswers.Answered]) throws -> Outcome {
        var findings = CrashDirectoryFindings()
        let fileManager = FileManager.default
        findings.indexRebuilt = fileManager.fileExists(atPath: directory + "/index.sqlite.broken")
        let rows = try readRows(directory + "/index.sqlite")
        findings.rows = rows.count

        // Every row: its file whole.
        var fileSums: [String: String] = [:]
        for row in rows {
            let path = dataPath(directory, row.digest)
            let what = "\(row.url) [\(row.variant)]"
            guard let bytes = fileManager.contents(atPath: path).map([UInt8].init) else {
                findings.rowProblems.append("missing file \(path) for \(what)")
                continue
            }
            let sum = Hash256.of(bytes).hex
            fileSums[row.digest] = sum
            if bytes.count != row.size {
                findings.rowProblems.append("\(path) has \(bytes.count) bytes, its row says \(row.size) (\(what))")
            } else if sum != row.sha256.lowercased() {
                findings.rowProblems.append("\(path) is not the bytes its row's SHA-256 names (\(what))")
            }
        }
        findings.orphans = orphans(directory, listed: Set(rows.map(\.digest)))

        // Every answer: whole or absent.
        var stillCached: [CrashAnswers.Answered] = []
        let listed = Set(rows.map(\.digest))
        for answered in answers {
            findings.answersChecked += 1
            guard listed.contains(answered.request.digest) else {
                findings.absent += 1
                continue
            }
            if let sum = fileSums[answered.request.digest], answered.sha256.contains(sum) {
                findings.stillCached += 1
                stillCached.append(answered)
            } else {
                findings.torn.append("\(answered.request.url) [\(answered.request.variant)]: the index lists it, its file "
                                     + (fileSums[answered.request.digest] == nil ? "is missing" : "is not the body answered"))
            }
        }
        return Outcome(findings: findings, stillCached: stillCached)
    }

    /// The index's rows, through SQLite alone (the schema is DiskIndex's: table `entries`).
    private static func readRows(_ path: String) throws -> [Row] {
        guard FileManager.default.fileExists(atPath: path) else { throw ValidationErrorMessage("no index at \(path)") }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT digest, url, variant, size, sha256 FROM entries").map {
                Row(digest: $0[0], url: $0[1], variant: $0[2], size: $0[3], sha256: $0[4])
            }
        }
    }

    static func dataPath(_ directory: String, _ digest: String) -> String {
        "\(directory)/objects/\(digest.prefix(2))/\(digest)"
    }

    /// Everything under objects/ that is not a listed entry's file or sidecar, and anything in tmp/.
    private static func orphans(_ directory: String, listed: Set<String>) -> [String] {
        let fileManager = FileManager.default
        var found: [String] = []
        let objects = directory + "/objects"
        for fanout in ((try? fileManager.contentsOfDirectory(atPath: objects)) ?? []).sorted() {
            let folder = objects + "/" + fanout
            var isDirectory: ObjCBool = false
            guard fanout.count == 2, fileManager.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                found.append(folder)
                continue
            }
            for name in ((try? fileManager.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
                let digest = name.hasSuffix(".meta") ? String(name.dropLast(5)) : name
                if !(digest.hasPrefix(fanout) && listed.contains(digest)) { found.append(folder + "/" + name) }
            }
        }
        let tmp = directory + "/tmp"
        for name in ((try? fileManager.contentsOfDirectory(atPath: tmp)) ?? []).sorted() { found.append(tmp + "/" + name) }
        return found
    }
}
