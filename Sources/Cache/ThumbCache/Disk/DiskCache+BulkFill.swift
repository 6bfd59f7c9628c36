import Dispatch
import Foundation
import Synchronization

/// One entry for `DiskCache.bulkFill`.
public struct DiskBulkEntry: Sendable {
    public var key: CacheKey
    public var bytes: [UInt8]
    public var contentType: String?
    public var validators: CacheValidators

    public init(key: CacheKey, bytes: [UInt8], contentType: String? = nil, validators: CacheValidators = CacheValidators()) {
        self.key = key
        self.bytes = bytes
        self.contentType = contentType
        self.validators = validators
    }
}

/// Filling a cache of millions of entries fast enough to measure one: the files and index rows
/// `store` writes, in chunks, without its per-entry transaction, fsync and eviction.
extension DiskCache {
    /// Adds `count` entries made by `make(0..<count)` to this (owned) cache: each chunk's rows in
    /// one transaction, then its files written by every core, straight to their final names.
    /// No eviction: the caller's limits must hold them. Not crash-safe while it runs (a tool's
    /// path, not the daemon's): a crash leaves rows whose files are missing, dropped on the next
    /// start. Returns the bytes added.
    @discardableResult
    public func bulkFill(count: Int, chunk: Int = 20_000, progress: (Int) -> Void = { _ in },
                         make: @escaping @Sendable (Int) -> DiskBulkEntry) throws(CacheError) -> Int {
        try requireOwner()
        // An empty index is filled without its secondary indexes, made after in one sort each.
        var indexesDropped = usage.thumbnails.entries == 0 && usage.originals.entries == 0
        if indexesDropped { try withIndex { try $0.dropSecondaryIndexes() } }
        defer { if indexesDropped { try? withIndex { try $0.createSecondaryIndexes() } } }
        var added = 0
        var start = 0
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        while start < count {
            let range = start..<min(count, start + chunk)
            let made = Mutex<[DiskBulkEntry?]>(Array(repeating: nil, count: range.count))
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                for i in stride(from: worker, to: range.count, by: workers) {
                    let entry = make(range.lowerBound + i)
                    made.withLock { $0[i] = entry }
                }
            }
            let entries = made.withLock { $0 }.compactMap { $0 }
            let now = clock.now()
            var batch = DiskIndexBatch()
            var files: [(Hash256, [UInt8])] = []
            for entry in entries {
                guard let id = Hash256(hex: entry.key.digest) else { continue }
                let metadata = EntryMetadata(storing: entry.bytes, contentType: entry.contentType, validators: entry.validators, at: now)
                let stamp = state.withLock { $0.pending.stamp(now.timeIntervalSince1970) }
                let record = DiskEntryRecord(id: id, isOriginal: entry.key.variant.isOriginal, metadata: metadata, lastAccess: stamp, hits: 0)
                batch.upserts.append(DiskIndexRow(key: entry.key, record: record))
                files.append((id, entry.bytes))
                added += entry.bytes.count
            }
            batch.upserts.sort { $0.digest < $1.digest }  // neighbouring rows: fewer index pages touched
            try writer.withLock { (w) throws(CacheError) in
                guard !w.closed else { throw CacheError.closed }
                for (id, _) in files { try? ensureFanout(id, &w) }
                try commitOrThrow(batch, &w)
            }
            let failure = Mutex<FileOpError?>(nil)
            let layout = layout
            let written = files
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                for i in stride(from: worker, to: written.count, by: workers) {
                    let (id, bytes) = written[i]
                    let path = layout.dataPath(id)
                    _ = try? FileOps.remove(path)
                    do throws(FileOpError) { try FileOps.writeNew(path, bytes, sync: false) } catch { failure.withLock { $0 = $0 ?? error } }
                }
            }
            if let error = failure.withLock({ $0 }) { throw Self.writeError(error) }
            start = range.upperBound
            progress(start)
        }
        if indexesDropped {
            try withIndex { try $0.createSecondaryIndexes() }
            indexesDropped = false
        }
        return added
    }

    private func withIndex(_ body: (DiskIndex) throws -> Void) throws(CacheError) {
        try writer.withLock { (w) throws(CacheError) in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            do { try body(index) } catch { throw Self.indexError(error, path: layout.indexPath) }
        }
    }
}
