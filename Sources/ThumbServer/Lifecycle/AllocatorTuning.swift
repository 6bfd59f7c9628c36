import CMallocTuning
import Foundation

/// glibc's malloc raises its mmap threshold each time a large mapped block is freed (up to 32 MiB
/// on 64-bit). After the first few thumbnails, decode buffers of a few MiB then come from the
/// arenas of whichever threads made them, and the holes they leave between smaller allocations
/// are seldom given back: under hours of mixed misses and hits the resident set climbs. A fixed
/// threshold keeps every block of 1 MiB or more in a mapping of its own, returned when freed.
/// An operator's own `GLIBC_TUNABLES` setting of the threshold is left alone.
enum AllocatorTuning {
    static let mmapThreshold: Int32 = 1 << 20

    /// True when the threshold was fixed here.
    @discardableResult
    static func apply() -> Bool {
        if ProcessInfo.processInfo.environment["GLIBC_TUNABLES"]?.contains("mmap_threshold") == true { return false }
        return thumbd_fix_mmap_threshold(mmapThreshold) == 1
    }
}
