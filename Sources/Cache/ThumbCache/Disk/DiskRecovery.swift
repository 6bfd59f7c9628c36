import Foundation

/// Brings the files and the index back into agreement after an unclean shutdown, one entry or
/// one folder of `objects/` at a time, or builds a new index from the files alone.
///
/// A store commits the row before its file is renamed into place, so after a crash of the process
/// a file under `objects/` without a row is one that was evicted and still waited for its unlink
/// (`DiskReaper`); a crash of the machine can also lose the last commits (a file without a row) or
/// the last files' bytes (a torn file). Entries of thumbd 0.x also have a
/// sidecar (`<digest>.meta`) describing them, written before the file; the rules still read it.
///
/// Rules, applied by `repair` to one entry:
/// - an index row whose file is missing: dropped (and any sidecar removed);
/// - a row whose file matches it (size and checksum): kept;
/// - a row whose file matches its sidecar instead: the sidecar's metadata replaces the row;
/// - a file without a row: adopted if its sidecar names this digest and matches the file's size
///   and checksum, else removed;
/// - anything else: the file and sidecar are removed and the row dropped.
///
/// `examine` finds the entries of one folder that need `repair`: rows without files, files without
/// rows, sidecars alone, sizes that differ, and files modified since `recentFrom` (written just
/// before a crash of the machine, so perhaps torn), which it checksums. Any other name under
/// `objects/` is removed. Files in `tmp/` are writes that never finished.
struct DiskRecovery {
    let layout: DiskLayout

    struct Outcome {
        var batch = DiskIndexBatch()
        var removedFiles = 0
        var droppedRows = 0
        var adopted = 0
        var checksummed = 0

        var summary: String {
            "\(adopted) adopted from their metadata, \(droppedRows) index rows dropped, "
                + "\(removedFiles) stray or damaged files removed, \(checksummed) files checksummed"
        }

        var changedAnything: Bool { removedFiles + droppedRows + adopted > 0 }

        mutating func add(_ other: Outcome) {
            removedFiles += other.removedFiles
            droppedRows += other.droppedRows
            adopted += other.adopted
            checksummed += other.checksummed
        }
    }

    struct FileScan {
        var data: [Hash256: FileOps.Status] = [:]
        var sidecars: Set<Hash256> = []
        var strays: [String] = []
        var newest: Double = 0
    }

    /// What one folder needs: the entries to `repair` (under the writer lock, against fresh
    /// state), the rows whose files were checksummed and found right, and what was done meanwhile.
    struct FolderFindings {
        var suspects: [Hash256] = []
        var verified: [DiskIndexRow] = []
        var outcome = Outcome()
    }

    /// Examines one folder against `rows` (the index's rows for it), without changing any entry:
    /// only strays are removed here. Runs beside a live cache, so what it suspects is confirmed
    /// by `repair`.
    func examine(fanout: String, rows: [DiskIndexRow], recentFrom: Double) throws(FileOpError) -> FolderFindings {
        var files = FileScan()
        if FileOps.lstatus(layout.fanoutPath(fanout)) != nil { try scan(fanout: fanout, into: &files) }
        var findings = FolderFindings()
        for stray in files.strays {
            try FileOps.removeTree(stray)
            findings.outcome.removedFiles += 1
        }
        var listed = Set<Hash256>()
        listed.reserveCapacity(rows.count)
        for row in rows {
            guard let id = Hash256(hex: row.digest) else { continue }
            listed.insert(id)
            guard let file = files.data[id] else {
                findings.suspects.append(id)
                continue
            }
            if Int(file.size) == row.metadata.size && file.modified < recentFrom { continue }
            findings.outcome.checksummed += 1
            if let bytes = try? FileOps.readAll(layout.dataPath(id)), bytes.count == row.metadata.size,
               Hash256.of(bytes) == row.metadata.checksum {
                findings.verified.append(row)
            } else {
                findings.suspects.append(id)
            }
        }
        for id in files.data.keys where !listed.contains(id) { findings.suspects.append(id) }
        for id in files.sidecars where !listed.contains(id) && files.data[id] == nil { findings.suspects.append(id) }
        return findings
    }

    /// Applies the rules to one entry as it is now; its index changes go into `outcome.batch`.
    func repair(_ id: Hash256, row: DiskIndexRow?, into outcome: inout Outcome) throws(FileOpError) {
        let bytes: [UInt8]?
        do { bytes = try FileOps.readAll(layout.dataPath(id)) } catch where error.isNotFound { bytes = nil }
        let sidecar = readSidecar(id)
        guard let bytes else {
            if row != nil {
                outcome.batch.deletes.append(id)
                outcome.droppedRows += 1
            }
            if sidecar != nil || FileOps.lstatus(layout.sidecarPath(id)) != nil {
                try FileOps.remove(layout.sidecarPath(id))
                outcome.removedFiles += 1
            }
            return
        }
        outcome.checksummed += 1
        let sum = Hash256.of(bytes)
        if let row, bytes.count == row.metadata.size, sum == row.metadata.checksum { return }
        if let sidecar, sidecar.metadata.size == bytes.count, sidecar.metadata.checksum == sum, let key = sidecar.key(matching: id) {
            outcome.batch.upserts.append(DiskIndexRow(key: key, sidecar: sidecar))
            outcome.adopted += 1
            return
        }
        try removeEntryFiles(id)
        outcome.removedFiles += 1
        if row != nil {
            outcome.batch.deletes.append(id)
            outcome.droppedRows += 1
        }
    }

    /// Every file in `tmp/`: writes that never finished (only before this process writes any).
    func clearTemporary(into outcome: inout Outcome) throws(FileOpError) {
        for name in try FileOps.list(layout.tmpPath) {
            try FileOps.removeTree(layout.tmpPath + "/" + name)
            outcome.removedFiles += 1
        }
    }

    /// Lists one folder of `objects/`: data files, sidecars, and anything else.
    func scan(fanout: String, into result: inout FileScan) throws(FileOpError) {
        let folder = layout.fanoutPath(fanout)
        guard fanout.utf8.count == 2, Hash256.isLowerHex(fanout), FileOps.lstatus(folder)?.isDirectory == true else {
            result.strays.append(folder)
            return
        }
        for name in try FileOps.list(folder) {
            let path = folder + "/" + name
            if name.utf8.count == 64, name.hasPrefix(fanout), Hash256.isLowerHex(name), let id = Hash256(hex: name),
               let status = FileOps.lstatus(path), status.isRegular {
                result.data[id] = status
                result.newest = max(result.newest, status.modified)
            } else if name.hasSuffix(DiskLayout.sidecarSuffix), name.utf8.count == 64 + DiskLayout.sidecarSuffix.utf8.count,
                      name.hasPrefix(fanout), let id = Hash256(hex: name.prefix(64)), Hash256.isLowerHex(name.prefix(64)) {
                result.sidecars.insert(id)
            } else {
                result.strays.append(path)
            }
        }
    }

    func readSidecar(_ id: Hash256) -> DiskSidecar? {
        guard let bytes = try? FileOps.readAll(layout.sidecarPath(id)) else { return nil }
        return DiskSidecar.decode(bytes)
    }

    func removeEntryFiles(_ id: Hash256) throws(FileOpError) {
        try FileOps.remove(layout.dataPath(id))
        try FileOps.remove(layout.sidecarPath(id))
    }
}

extension Hash256 {
    /// Lower-case hex only: file names must be exactly what the cache writes.
    static func isLowerHex(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
