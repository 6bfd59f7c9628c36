import Foundation
import UploadPreparation

#if canImport(Glibc)
import Glibc
#endif

/// Writes a prepared batch all or nothing: every file is first written and synced under a temporary
/// name beside its destination, and only when all of them are complete are they renamed into place.
/// A failure (a full disk, a read-only folder) removes what was staged and leaves the folder as it was.
struct BatchWriter {
    struct File {
        var url: URL
        var bytes: [UInt8]
    }

    static func commit(_ files: [File]) throws(UploadError) {
        var staged: [(temporary: URL, final: URL)] = []
        do {
            for file in files {
                let folder = file.url.deletingLastPathComponent()
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let temporary = folder.appendingPathComponent(".\(file.url.lastPathComponent).thumbd-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp")
                staged.append((temporary, file.url))
                try writeSynced(file.bytes, to: temporary)
            }
        } catch {
            for (temporary, _) in staged { unlink(temporary.path) }
            throw UploadError(.writeFailed, "\(describe(error)); nothing was written")
        }
        for (index, (temporary, final)) in staged.enumerated() where rename(temporary.path, final.path) != 0 {
            let reason = String(cString: strerror(errno))
            for (laterTemporary, _) in staged[index...] { unlink(laterTemporary.path) }
            for (_, earlierFinal) in staged[..<index] { unlink(earlierFinal.path) }
            throw UploadError(.writeFailed, "cannot move \(final.path) into place: \(reason); nothing was written")
        }
    }

    private struct WriteError: Error { let path: String; let code: Int32 }

    private static func writeSynced(_ bytes: [UInt8], to url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteError(path: url.path, code: errno) }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw WriteError(path: url.path, code: errno)
            }
            written += n
        }
        guard fsync(fd) == 0 else { throw WriteError(path: url.path, code: errno) }
    }

    private static func describe(_ error: Error) -> String {
        if let error = error as? WriteError {
            let reason = String(cString: strerror(error.code))
            return error.code == ENOSPC ? "the disk is full: cannot write \(error.path) (\(reason))" : "cannot write \(error.path): \(reason)"
        }
        return "cannot write the output: \(error.localizedDescription)"
    }
}
