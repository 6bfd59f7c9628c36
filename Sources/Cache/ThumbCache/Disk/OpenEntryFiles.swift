#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Descriptors of entry files this process has read and checked, kept open so that a hit reads its
/// file with one `fstat` and one `pread`: no path walk, no open, no close. On a small file that is
/// most of what a disk hit costs the kernel (nginx keeps its `open_file_cache` for the same reason).
///
/// A kept file is used only for the entry generation it was opened for, and only while `fstat`
/// says it is still linked and has the size and change time it had when it was opened: a file
/// removed, truncated or rewritten behind the cache's back is read again by path (and dropped by
/// the usual checks), never served from a stale descriptor. Bounded by count; the oldest kept
/// file makes room for a new one. A descriptor is closed when the last reader of it is done, so
/// one being read is never closed (and its number never reused) under the reader.
final class OpenEntryFiles: Sendable {
    /// One open entry file. Closed when the last reference goes.
    final class File: Sendable {
        let descriptor: Int32
        let generation: UInt64
        let path: String
        private let changed: timespec
        private let size: Int

        /// Opens `path` for reading.
        init(path: String, generation: UInt64) throws(FileOpError) {
            let fd = FileOps.openDescriptor(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw FileOpError(operation: "open", path: path, code: errno) }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let code = errno
                FileOps.closeDescriptor(fd)
                throw FileOpError(operation: "stat", path: path, code: code)
            }
            (descriptor, self.generation, self.path, changed, size) = (fd, generation, path, info.st_ctim, Int(info.st_size))
        }

        deinit { FileOps.closeDescriptor(descriptor) }

        /// The whole file as it was when opened, or nil when it is gone, resized or changed since.
        func readIfUnchanged(expectedSize: Int) -> [UInt8]? {
            var info = stat()
            guard fstat(descriptor, &info) == 0, info.st_nlink > 0, Int(info.st_size) == size, size == expectedSize,
                  info.st_ctim.tv_sec == changed.tv_sec, info.st_ctim.tv_nsec == changed.tv_nsec else { return nil }
            guard let bytes = try? readAll(), bytes.count == expectedSize else { return nil }
            return bytes
        }

        /// Everything from offset 0 to the size seen at open (or less, if the file shrank).
        func readAll() throws(FileOpError) -> [UInt8] {
            try FileOps.readAll(descriptor: descriptor, size: size, path: path)
        }
    }

    private struct Table {
        var files: [Hash256: (file: File, slot: Int)] = [:]
        /// Ids in the order they were kept; the slot about to be reused holds the oldest.
        var ring: [Hash256?]
        var next = 0
    }

    private let table: DiskMutex<Table>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        table = DiskMutex(Table(ring: Array(repeating: nil, count: max(0, capacity))))
    }

    /// The kept file of `id` if it was opened for `generation`.
    func file(_ id: Hash256, generation: UInt64) -> File? {
        table.withLock { t in
            guard let kept = t.files[id] else { return nil }
            return kept.file.generation == generation ? kept.file : nil
        }
    }

    /// Keeps `file` as `id`'s, in place of any other.
    func keep(_ id: Hash256, _ file: File) {
        guard capacity > 0 else { return }
        // Closed outside the lock: the last reference to an evicted file may be this one.
        var evicted: [File] = []
        table.withLock { t in
            if let oldest = t.ring[t.next], let kept = t.files[oldest], kept.slot == t.next {
                evicted.append(kept.file)
                t.files[oldest] = nil
            }
            if let replaced = t.files.updateValue((file, t.next), forKey: id) { evicted.append(replaced.file) }
            t.ring[t.next] = id
            t.next = (t.next + 1) % capacity
        }
        evicted.removeAll()
    }

    /// Lets go of `id`'s file (the entry was removed or replaced).
    func forget(_ id: Hash256) {
        let gone = table.withLock { $0.files.removeValue(forKey: id) }
        _ = gone
    }

    func removeAll() {
        let gone = table.withLock { t -> [Hash256: (file: File, slot: Int)] in
            defer { t.files = [:] }
            return t.files
        }
        _ = gone
    }

    var count: Int { table.withLock { $0.files.count } }
}
