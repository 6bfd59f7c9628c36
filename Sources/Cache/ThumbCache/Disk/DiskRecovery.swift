import Dispatch
import Foundation
import Synchronization

/// Brings the files and the index back into agreement after an unclean shutdown, or builds a new
/// index from the files alone. Runs in the owner before anything else touches the directory.
///
/// Rules (an entry is served only if its file, its index row and its sidecar agree):
/// - every file in `tmp/` is a write that never finished: removed;
/// - an index row whose file is missing: dropped;
/// - a row whose file has another size, or whose file was modified within `recheckWindow` of the
///   newest file (written just before the crash), or that has no sidecar: the file is checksummed.
///   If it matches the row, kept; else if it matches its sidecar, the sidecar's metadata replaces
///   the row (the crash came between renaming a replacement into place and committing its row);
///   else the file is removed and the row dropped;
/// - a file without a row: adopted if its sidecar names this digest and matches the file's size
///   and checksum (the crash came between the rename and the commit), else removed;
/// - a sidecar without a file, or any other name under `objects/`: removed.
struct DiskRecovery {
    let layout: DiskLayout
    let recheckWindow: Double

    struct Outcome {
        var records: [DiskEntryRecord] = []
        var batch = DiskIndexBatch()
        var removedFiles = 0
        var droppedRows = 0
        var adopted = 0
        var checksummed = 0
        var sidecarsWritten = 0

        var summary: String {
            "\(records.count) entries kept, \(adopted) adopted from their metadata, \(droppedRows) index rows dropped, "
                + "\(removedFiles) stray or damaged files removed, \(checksummed) files checksummed"
        }

        var changedAnything: Bool { removedFiles + droppedRows + adopted + sidecarsWritten > 0 }
    }

    struct FileScan {
        var data: [Hash256: FileOps.Status] = [:]
        var sidecars: Set<Hash256> = []
        var strays: [String] = []
        var newest: Double = 0
    }

    /// Lists `objects/`: data files, sidecars, and anything else. The fan-out folders are listed on
    /// every core at once: at 100,000 entries this listing is most of a restart after a crash.
    func scan() throws(FileOpError) -> FileScan {
        let fanouts = try FileOps.list(layout.objectsPath)
        let parts = Mutex<[FileScan]>([])
        let failure = Mutex<FileOpError?>(nil)
        let workers = max(1, min(fanouts.count, ProcessInfo.processInfo.activeProcessorCount))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var part = FileScan()
            do throws(FileOpError) {
                for fanout in stride(from: worker, to: fanouts.count, by: workers).map({ fanouts[$0] }) {
                    try scan(fanout: fanout, into: &part)
                }
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
            parts.withLock { $0.append(part) }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        var result = FileScan()
        for part in parts.withLock({ $0 }) {
            result.data.merge(part.data) { first, _ in first }
            result.sidecars.formUnion(part.sidecars)
            result.strays += part.strays
            result.newest = max(result.newest, part.newest)
        }
        return result
    }

    private func scan(fanout: String, into result: inout FileScan) throws(FileOpError) {
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

    /// `rows` nil: rebuild (every file must prove itself through its sidecar).
    func run(rows: [DiskIndexRow]?, malformed: [String] = []) throws(FileOpError) -> Outcome {
        var outcome = Outcome()
        outcome.batch.malformedDigests = malformed
        outcome.droppedRows += malformed.count
        for name in try FileOps.list(layout.tmpPath) {
            try FileOps.removeTree(layout.tmpPath + "/" + name)
            outcome.removedFiles += 1
        }
        let files = try scan()
        for stray in files.strays {
            try FileOps.removeTree(stray)
            outcome.removedFiles += 1
        }
        let recentFrom = files.newest - recheckWindow
        var handled = Set<Hash256>()
        handled.reserveCapacity(files.data.count)

        for row in rows ?? [] {
            guard let id = Hash256(hex: row.digest), var record = row.record, !handled.contains(id) else {
                outcome.batch.deletes.append(contentsOf: Hash256(hex: row.digest).map { [$0] } ?? [])
                outcome.droppedRows += 1
                continue
            }
            guard let file = files.data[id] else {
                outcome.batch.deletes.append(id)
                outcome.droppedRows += 1
                if files.sidecars.contains(id) {
                    try FileOps.remove(layout.sidecarPath(id))
                    outcome.removedFiles += 1
                }
                handled.insert(id)
                continue
            }
            handled.insert(id)
            let hasSidecar = files.sidecars.contains(id)
            if Int(file.size) == row.metadata.size && file.modified < recentFrom && hasSidecar {
                outcome.records.append(record)
                continue
            }
            // Look closer: checksum the file and compare with the row, then with the sidecar.
            outcome.checksummed += 1
            let bytes: [UInt8]
            do { bytes = try FileOps.readAll(layout.dataPath(id)) } catch where error.isNotFound { bytes = [] }
            let sum = Hash256.of(bytes)
            if bytes.count == row.metadata.size && sum == row.metadata.checksum {
                // The file is what the row says. (Its sidecar can only describe these same bytes:
                // a replacement removes the old sidecar before the new one appears.)
                if !hasSidecar {
                    try writeSidecar(row.sidecar, id: id)
                    outcome.sidecarsWritten += 1
                }
                outcome.records.append(record)
            } else if hasSidecar, let sidecar = readSidecar(id), sidecar.metadata.size == bytes.count, sidecar.metadata.checksum == sum,
                      let key = sidecar.key(matching: id) {
                let adopted = DiskIndexRow(key: key, sidecar: sidecar)
                record = adopted.record ?? record
                outcome.batch.upserts.append(adopted)
                outcome.records.append(record)
                outcome.adopted += 1
            } else {
                try removeEntryFiles(id)
                outcome.batch.deletes.append(id)
                outcome.droppedRows += 1
                outcome.removedFiles += 1
            }
        }

        // Files the index does not list.
        for (id, file) in files.data where !handled.contains(id) {
            outcome.checksummed += 1
            if files.sidecars.contains(id), let sidecar = readSidecar(id), sidecar.metadata.size == Int(file.size),
               let key = sidecar.key(matching: id) {
                let bytes: [UInt8]
                do { bytes = try FileOps.readAll(layout.dataPath(id)) } catch where error.isNotFound { continue }
                if bytes.count == sidecar.metadata.size, sidecar.metadata.checksum == Hash256.of(bytes) {
                    let row = DiskIndexRow(key: key, sidecar: sidecar)
                    if let record = row.record {
                        outcome.batch.upserts.append(row)
                        outcome.records.append(record)
                        outcome.adopted += 1
                        continue
                    }
                }
            }
            try removeEntryFiles(id)
            outcome.removedFiles += 1
        }
        for id in files.sidecars where files.data[id] == nil && !handled.contains(id) {
            try FileOps.remove(layout.sidecarPath(id))
            outcome.removedFiles += 1
        }
        return outcome
    }

    func readSidecar(_ id: Hash256) -> DiskSidecar? {
        guard let bytes = try? FileOps.readAll(layout.sidecarPath(id)) else { return nil }
        return DiskSidecar.decode(bytes)
    }

    func writeSidecar(_ sidecar: DiskSidecar, id: Hash256) throws(FileOpError) {
        let temporary = layout.tmpPath + "/\(id.hex).recovery.meta"
        _ = try? FileOps.remove(temporary)
        let bytes = sidecar.encoded()
        try FileOps.writeNew(temporary, bytes, sync: false)
        try FileOps.rename(temporary, layout.sidecarPath(id))
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
