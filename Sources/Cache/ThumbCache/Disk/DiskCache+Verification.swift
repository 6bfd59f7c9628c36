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

    /// Checksums every file against the index and (owner only) looks for files the index does
    /// not list, sidecars of an older format that describe other bytes, and old temporary files.
    /// With `repair` (owner only), drops damaged entries and removes strays. One folder of
    /// `objects/` at a time (its rows and files in memory, never all entries; the owner's stores
    /// wait only for the folder being checked). A read-only verify beside a running owner reports
    /// only problems that are still there when looked at twice.
    public func verify(repair: Bool = false) throws(CacheError) -> VerifyReport {
        if repair { try requireOwner() }
        if mode == .readOnly { return try readOnlyVerify() }
        reaper?.drain()  // evicted files waiting for their unlink are not strays
        var report = VerifyReport()
        let recovery = DiskRecovery(layout: layout)
        for value in 0..<256 {
            let fanout = String(format: "%02x", value)
            try writer.withLock { (w) throws(CacheError) in
                guard !w.closed, let index = w.index else { throw CacheError.closed }
                try flushLocked(&w)
                let rows: [DiskIndexRow]
                do { rows = try index.rows(fanout: fanout) } catch { throw Self.indexError(error, path: layout.indexPath) }
                var scan = DiskRecovery.FileScan()
                do throws(FileOpError) {
                    if FileOps.lstatus(layout.fanoutPath(fanout)) != nil { try recovery.scan(fanout: fanout, into: &scan) }
                } catch {
                    throw CacheError.readFailed(path: layout.fanoutPath(fanout), reason: error.description)
                }
                var damaged: [Hash256] = []
                var strays: [String] = []
                var listed = Set<Hash256>()
                for row in rows {
                    guard let id = Hash256(hex: row.digest) else { continue }
                    listed.insert(id)
                    report.checkedEntries += 1
                    if let problem = checkFile(row, id: id) {
                        report.problems.append(problem)
                        damaged.append(id)
                        continue
                    }
                    report.checkedBytes += row.metadata.size
                    if scan.sidecars.contains(id), recovery.readSidecar(id)?.describesSameFile(as: row.sidecar) != true {
                        report.problems.append(.init(kind: .badSidecar, path: layout.sidecarPath(id), url: row.url,
                                                     detail: "metadata of an older format that does not match the index"))
                        strays.append(layout.sidecarPath(id))
                    }
                }
                for id in scan.data.keys where !listed.contains(id) {
                    report.problems.append(.init(kind: .orphanFile, path: layout.dataPath(id), url: nil, detail: "not in the index"))
                    strays.append(layout.dataPath(id))
                    if scan.sidecars.contains(id) { strays.append(layout.sidecarPath(id)) }
                }
                for id in scan.sidecars where !listed.contains(id) && scan.data[id] == nil {
                    report.problems.append(.init(kind: .orphanFile, path: layout.sidecarPath(id), url: nil, detail: "metadata without a file"))
                    strays.append(layout.sidecarPath(id))
                }
                for path in scan.strays {
                    report.problems.append(.init(kind: .orphanFile, path: path, url: nil, detail: "not a cache file"))
                    strays.append(path)
                }
                guard repair else { return }
                state.withLock { s in
                    for id in damaged {
                        s.pending.forget(id)
                        s.verified.forget(id)
                    }
                }
                for id in damaged { removeFiles(id, &w) }
                for path in strays { _ = try? FileOps.removeTree(path) }
                try commitOrThrow(DiskIndexBatch(deletes: damaged), &w)
            }
        }
        // Temporary files of stores in progress are young; old ones are leftovers.
        let now = FileOps.wallSeconds()
        for name in (try? FileOps.list(layout.tmpPath)) ?? [] {
            let path = layout.tmpPath + "/" + name
            if let status = FileOps.lstatus(path), now - status.modified > 60 {
                report.problems.append(.init(kind: .temporaryFile, path: path, url: nil, detail: "left over from an unfinished write"))
                if repair { _ = try? FileOps.removeTree(path) }
            }
        }
        report.repaired = repair
        return report
    }

    func readOnlyVerify() throws(CacheError) -> VerifyReport {
        var report = VerifyReport()
        for value in 0..<256 {
            let rows = try readIndex { try $0.rows(fanout: String(format: "%02x", value)) }
            for row in rows {
                guard let id = Hash256(hex: row.digest) else { continue }
                report.checkedEntries += 1
                guard checkFile(row, id: id) != nil else {
                    report.checkedBytes += row.metadata.size
                    continue
                }
                // Confirm: the owner may have changed the entry meanwhile.
                if try readIndex({ try $0.row(digest: row.digest) }) == row, let again = checkFile(row, id: id) {
                    report.problems.append(again)
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
