import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checking every file against its checksum and the index against the files; repairs.
extension DiskCache {
    // MARK: Verification

    /// Checksums every file against the index, checks each sidecar, and (owner only) looks for
    /// files the index does not list and old temporary files. With `repair` (owner only), drops
    /// damaged entries, removes strays and rewrites bad sidecars. A read-only verify beside a running
    /// owner reports only problems that are still there when looked at twice.
    public func verify(repair: Bool = false) throws(CacheError) -> VerifyReport {
        if repair { try requireOwner() }
        if mode == .readOnly { return try readOnlyVerify() }
        return try writer.withLock { (w) throws(CacheError) -> VerifyReport in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            try flushLocked(&w)
            let rows: [DiskIndexRow]
            do { rows = try index.loadRows().rows } catch { throw Self.indexError(error, path: layout.indexPath) }
            var report = VerifyReport()
            var damaged: [Hash256] = []
            var sidecarsToWrite: [(Hash256, DiskSidecar)] = []
            var strays: [String] = []
            let recovery = DiskRecovery(layout: layout, recheckWindow: 0)
            for row in rows {
                guard let id = Hash256(hex: row.digest) else { continue }
                report.checkedEntries += 1
                if let problem = checkFile(row, id: id) {
                    report.problems.append(problem)
                    damaged.append(id)
                    continue
                }
                report.checkedBytes += row.metadata.size
                let sidecar = recovery.readSidecar(id)
                if sidecar?.describesSameFile(as: row.sidecar) != true {
                    report.problems.append(.init(kind: .badSidecar, path: layout.sidecarPath(id), url: row.url,
                                                 detail: sidecar == nil ? "missing or unreadable" : "does not match the index"))
                    sidecarsToWrite.append((id, row.sidecar))
                }
            }
            let listed = Set(rows.compactMap { Hash256(hex: $0.digest) })
            let scan: DiskRecovery.FileScan
            do throws(FileOpError) { scan = try recovery.scan() } catch {
                throw CacheError.readFailed(path: layout.objectsPath, reason: error.description)
            }
            for id in scan.data.keys where !listed.contains(id) {
                report.problems.append(.init(kind: .orphanFile, path: layout.dataPath(id), url: nil, detail: "not in the index"))
                strays.append(layout.dataPath(id))
                strays.append(layout.sidecarPath(id))
            }
            for id in scan.sidecars where !listed.contains(id) && scan.data[id] == nil {
                report.problems.append(.init(kind: .orphanFile, path: layout.sidecarPath(id), url: nil, detail: "metadata without a file"))
                strays.append(layout.sidecarPath(id))
            }
            for path in scan.strays {
                report.problems.append(.init(kind: .orphanFile, path: path, url: nil, detail: "not a cache file"))
                strays.append(path)
            }
            // Temporary files of stores in progress are young; old ones are leftovers.
            let now = FileOps.wallSeconds()
            for name in (try? FileOps.list(layout.tmpPath)) ?? [] {
                let path = layout.tmpPath + "/" + name
                if let status = FileOps.lstatus(path), now - status.modified > 60 {
                    report.problems.append(.init(kind: .temporaryFile, path: path, url: nil, detail: "left over from an unfinished write"))
                    strays.append(path)
                }
            }
            guard repair else { return report }
            state.withLock { s in
                for id in damaged {
                    s.table.remove(id)
                    s.dirty.remove(id)
                }
            }
            for id in damaged { removeFiles(id, &w) }
            for path in strays { _ = try? FileOps.removeTree(path) }
            for (id, sidecar) in sidecarsToWrite {
                do { try recovery.writeSidecar(sidecar, id: id) } catch { warn("could not rewrite \(layout.sidecarPath(id)): \(error)") }
            }
            try commitOrThrow(DiskIndexBatch(deletes: damaged), &w)
            report.repaired = true
            return report
        }
    }

    func readOnlyVerify() throws(CacheError) -> VerifyReport {
        let rows = try readIndex { try $0.loadRows().rows }
        var report = VerifyReport()
        let recovery = DiskRecovery(layout: layout, recheckWindow: 0)
        for row in rows {
            guard let id = Hash256(hex: row.digest) else { continue }
            report.checkedEntries += 1
            if let problem = checkFile(row, id: id) {
                // Confirm: the owner may have changed the entry meanwhile.
                if try readIndex({ try $0.row(digest: row.digest) }) == row, let again = checkFile(row, id: id) {
                    report.problems.append(again)
                } else {
                    _ = problem
                }
                continue
            }
            report.checkedBytes += row.metadata.size
            if recovery.readSidecar(id)?.describesSameFile(as: row.sidecar) != true {
                if try readIndex({ try $0.row(digest: row.digest) }) == row, recovery.readSidecar(id)?.describesSameFile(as: row.sidecar) != true {
                    report.problems.append(.init(kind: .badSidecar, path: layout.sidecarPath(id), url: row.url, detail: "missing or does not match the index"))
                }
            }
        }
        return report
    }

    func checkFile(_ row: DiskIndexRow, id: Hash256) -> VerifyReport.Problem? {
        let path = layout.dataPath(id)
        let bytes: [UInt8]
        do { bytes = try FileOps.readAll(path) } catch {
            return .init(kind: error.isNotFound ? .missingFile : .unreadable, path: path, url: row.url,
                         detail: error.isNotFound ? "" : error.reason)
        }
        if bytes.count != row.metadata.size {
            return .init(kind: .sizeMismatch, path: path, url: row.url, detail: "\(bytes.count) bytes, the index says \(row.metadata.size)")
        }
        if Hash256.of(bytes) != row.metadata.checksum {
            return .init(kind: .checksumMismatch, path: path, url: row.url, detail: "content differs from what was stored")
        }
        return nil
    }
}
