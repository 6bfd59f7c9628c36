import ByteUnits
import Foundation

// What can go wrong with the disk tier, and what its start found.

/// Every error the disk tier reports. `description` is a sentence a person can act on.
public enum CacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another process holds the cache directory's lock (normally `thumbd serve`).
    case ownedByAnotherProcess(directory: String, pid: Int32?)
    /// A change was asked of a cache opened read-only.
    case readOnly(directory: String)
    /// A read-only open found no cache there.
    case noCache(directory: String)
    /// The directory cannot be created or used.
    case directoryUnusable(directory: String, reason: String)
    /// Writing an entry failed (full disk, unwritable folder, I/O error). The cache stays
    /// consistent: the entry is simply not stored.
    case writeFailed(path: String, reason: String, diskFull: Bool)
    case readFailed(path: String, reason: String)
    /// The entry is bigger than its whole budget, so it is never stored.
    case entryTooLarge(size: Int, maxBytes: Int)
    /// SQLite refused an operation on the index.
    case indexFailed(reason: String)
    /// A read-only open could not read the index (a writer would rebuild it).
    case indexUnreadable(path: String, reason: String)
    case closed

    public var description: String {
        switch self {
        case .ownedByAnotherProcess(let directory, let pid):
            let who = pid.map { "process \($0)" } ?? "another process"
            return "the cache at \(directory) is in use by \(who) (thumbd serve?); stop it, or make the change through its HTTP API"
        case .readOnly(let directory):
            return "the cache at \(directory) is open read-only; changes need the owning process (or stop it first)"
        case .noCache(let directory):
            return "there is no thumbd cache at \(directory)"
        case .directoryUnusable(let directory, let reason):
            return "cannot use the cache directory \(directory): \(reason)"
        case .writeFailed(let path, let reason, let diskFull):
            return diskFull ? "the disk is full: cannot write \(path) (\(reason))" : "cannot write \(path): \(reason)"
        case .readFailed(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .entryTooLarge(let size, let maxBytes):
            return "an entry of \(ByteSize.format(size)) does not fit its cache budget of \(ByteSize.format(maxBytes))"
        case .indexFailed(let reason):
            return "the cache index failed: \(reason)"
        case .indexUnreadable(let path, let reason):
            return "cannot read the cache index \(path): \(reason) (the owning process rebuilds it on its next start)"
        case .closed:
            return "the cache is closed"
        }
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    public var secondsValue: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// How the owner found its directory when it opened it (logged by the daemon, tested after kill -9).
public struct DiskStartup: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// The previous owner closed it.
        case clean
        /// Nothing was there: no index, no files, no owner before this one.
        case created
        /// The previous owner's process died, the machine did not: files and index reconciled,
        /// only files the index cannot vouch for checksummed.
        case processCrash = "process_crash"
        /// Left unclosed on another boot (or an unknown one): recently written files checksummed too.
        case crash
        /// The index was missing or damaged and was rebuilt from the files.
        case rebuilt
        case readOnly = "read_only"
    }

    public var kind: Kind
    /// Files read and checksummed during the repair.
    public var checksummed = 0

    public init(kind: Kind, checksummed: Int = 0) {
        self.kind = kind
        self.checksummed = checksummed
    }
}
