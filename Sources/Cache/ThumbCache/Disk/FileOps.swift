#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private func posixRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func posixClose(_ fd: Int32) -> Int32 { close(fd) }

/// A failed system call on a path, with errno kept so callers can tell "gone" from "broken".
@_spi(CacheFiles) public struct FileOpError: Error, Sendable, CustomStringConvertible {
    var operation: String
    var path: String
    var code: Int32

    var isNotFound: Bool { code == ENOENT }
    var reason: String { String(cString: strerror(code)) }
    @_spi(CacheFiles) public var description: String { "\(operation) \(path): \(reason)" }
}

/// Plain POSIX file operations: no Foundation on the hot path, and errno preserved.
@_spi(CacheFiles) public enum FileOps {
    @_spi(CacheFiles) public struct Status {
        @_spi(CacheFiles) public var size: Int64
        /// Modification time, unix seconds.
        var modified: Double
        var isRegular: Bool
        var isDirectory: Bool
    }

    @_spi(CacheFiles) public static func status(_ path: String) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Status(info)
    }

    /// Reads a whole file. A file that shrinks while it is read gives its shorter content; the
    /// caller compares the length with what the index expects.
    static func readAll(_ path: String) throws(FileOpError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileOpError(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileOpError(operation: "stat", path: path, code: errno) }
        return try readAll(descriptor: fd, size: Int(info.st_size), path: path)
    }

    /// Reads `size` bytes from offset 0 with pread (the descriptor's own offset is left alone, so
    /// threads may share it), or fewer if the file ends sooner.
    static func readAll(descriptor fd: Int32, size expected: Int, path: @autoclosure () -> String) throws(FileOpError) -> [UInt8] {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: expected) { buffer, initialized in
            var done = 0
            while done < expected {
                let count = pread(fd, buffer.baseAddress! + done, expected - done, off_t(done))
                if count > 0 {
                    done += count
                } else if count == 0 {
                    break
                } else if errno != EINTR {
                    failure = errno
                    break
                }
            }
            initialized = done
        }
        if failure != 0 { throw FileOpError(operation: "read", path: path(), code: failure) }
        return bytes
    }

    /// Creates `path` (which must not exist), writes `bytes`, and optionally fsyncs before closing.
    /// On any failure the partial file is removed.
    @_spi(CacheFiles) public static func writeNew(_ path: String, _ bytes: [UInt8], sync: Bool) throws(FileOpError) {
        let failure: FileOpError? = bytes.withUnsafeBytes { raw in
            do throws(FileOpError) { try writeNew(path, raw, sync: sync) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    static func writeNew(_ path: String, _ bytes: UnsafeRawBufferPointer, sync: Bool) throws(FileOpError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileOpError(operation: "create", path: path, code: errno) }
        var failure: FileOpError?
        var done = 0
        while done < bytes.count {
            let count = write(fd, bytes.baseAddress! + done, bytes.count - done)
            if count > 0 {
                done += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                failure = FileOpError(operation: "write", path: path, code: count < 0 ? errno : EIO)
                break
            }
        }
        if failure == nil && sync && fsync(fd) != 0 {
            failure = FileOpError(operation: "fsync", path: path, code: errno)
        }
        if close(fd) != 0 && failure == nil && errno != EINTR {
            failure = FileOpError(operation: "close", path: path, code: errno)
        }
        if let failure {
            unlink(path)
            throw failure
        }
    }

    /// The process's soft limit of open descriptors (RLIMIT_NOFILE); 1024 if it cannot be read.
    static var descriptorLimit: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    static func openDescriptor(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { posixOpen(path, flags, mode) }

    @discardableResult
    static func closeDescriptor(_ fd: Int32) -> Int32 { posixClose(fd) }

    static func rename(_ from: String, _ to: String) throws(FileOpError) {
        guard posixRename(from, to) == 0 else { throw FileOpError(operation: "rename", path: "\(from) -> \(to)", code: errno) }
    }

    /// Removes a file; true if it was there. A file already gone is not an error.
    @discardableResult
    @_spi(CacheFiles) public static func remove(_ path: String) throws(FileOpError) -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw FileOpError(operation: "remove", path: path, code: errno)
    }

    /// Creates one directory; an existing directory is fine.
    static func makeDirectory(_ path: String) throws(FileOpError) {
        if mkdir(path, 0o755) == 0 { return }
        let code = errno
        if code == EEXIST, status(path)?.isDirectory == true { return }
        throw FileOpError(operation: "create directory", path: path, code: code)
    }

    /// Creates a directory and its missing parents.
    static func makeDirectories(_ path: String) throws(FileOpError) {
        if status(path)?.isDirectory == true { return }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            try makeDirectory(prefix)
        }
    }

    static func syncDirectory(_ path: String) throws(FileOpError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileOpError(operation: "open directory", path: path, code: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileOpError(operation: "fsync directory", path: path, code: errno) }
    }

    /// The names in a directory (without "." and ".."); a missing directory lists nothing.
    @_spi(CacheFiles) public static func list(_ path: String) throws(FileOpError) -> [String] {
        guard let dir = opendir(path) else {
            if errno == ENOENT { return [] }
            throw FileOpError(operation: "list", path: path, code: errno)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes a directory tree's files (not following symbolic links) and the directory itself.
    static func removeTree(_ path: String) throws(FileOpError) {
        guard let info = lstatus(path) else { return }
        if info.isDirectory {
            for name in try list(path) { try removeTree(path + "/" + name) }
            guard rmdir(path) == 0 || errno == ENOENT else { throw FileOpError(operation: "remove directory", path: path, code: errno) }
        } else {
            try remove(path)
        }
    }

    static func lstatus(_ path: String) -> Status? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Status(info)
    }

    /// Asks the kernel to read a whole file ahead (one sequential pass) so that a reader going
    /// page by page (SQLite scanning the index) does not wait on each page of a cold disk.
    static func prefetch(_ path: String) {
        let fd = posixOpen(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return }
        defer { _ = posixClose(fd) }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED)
    }

    /// A small file's text without surrounding whitespace; nil when it is missing, unreadable,
    /// empty or over 4 KiB. Reads until end of file, so /proc files (which report size 0) work.
    static func readSmallText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while bytes.count <= 4096 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += chunk[0..<count]
            } else if count == 0 {
                break
            } else if errno != EINTR {
                return nil
            }
        }
        guard bytes.count <= 4096 else { return nil }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let trimmed = bytes.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        return trimmed.isEmpty ? nil : String(decoding: Array(trimmed), as: UTF8.self)
    }

    /// This boot of the kernel (Linux: a random UUID per boot); nil where there is none.
    static func bootID() -> String? {
        readSmallText("/proc/sys/kernel/random/boot_id")
    }

    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func wallSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

extension FileOps.Status {
    init(_ info: stat) {
        size = Int64(info.st_size)
        modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        isRegular = (info.st_mode & S_IFMT) == S_IFREG
        isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
    }
}
