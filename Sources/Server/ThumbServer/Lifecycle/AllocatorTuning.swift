import CMallocTuning
import Foundation

/// glibc's malloc raises its mmap threshold each time a large mapped block is freed (up to 32 MiB
/// on 64-bit). After the first few thumbnails, decode buffers of a few MiB then come from the
/// arenas of whichever threads made them, and the holes they leave between smaller allocations
/// are seldom given back: under hours of mixed misses and hits the resident set climbs. A fixed
/// threshold keeps every block of 1 MiB or more in a mapping of its own, returned when freed.
/// An operator's own `GLIBC_TUNABLES` setting of the threshold, or of the arena count (or
/// `MALLOC_ARENA_MAX`), is left alone.
enum AllocatorTuning {
    static let mmapThreshold: Int32 = 1 << 20

    /// True when the threshold was fixed here.
    @discardableResult
    static func apply() -> Bool {
        let environment = ProcessInfo.processInfo.environment
        let tunables = environment["GLIBC_TUNABLES"] ?? ""
        if !tunables.contains("arena_max") && environment["MALLOC_ARENA_MAX"] == nil {
            thumbd_limit_arenas(Int32(arenaCount))
        }
        if tunables.contains("mmap_threshold") { return false }
        return thumbd_fix_mmap_threshold(mmapThreshold) == 1
    }

    /// glibc gives each thread that meets a locked arena a new one, up to eight per core; every
    /// arena keeps its own free holes. At 40 misses a second the resident set climbed all through a
    /// 12-minute soak (151 -> 199 MiB) with glibc's defaults and levelled off at 171-176 MiB with
    /// `MALLOC_ARENA_MAX=2`. The threads that allocate much are the CPU pool's, one per core, so
    /// they seldom wait for an arena.
    static var arenaCount: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }
}
