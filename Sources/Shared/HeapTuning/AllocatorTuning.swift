import CMallocTuning
import Foundation

/// Where glibc's malloc puts a miss's large buffers (libjpeg's coefficients, the decoded pixels,
/// the resampler's rows), and how much it keeps once they are freed: a bounded pool of them.
///
/// A block at or over the mmap threshold is a mapping of its own, unmapped when freed, so the
/// next miss faults its pages in afresh from zeroed memory. At the 1 MiB threshold thumbd had
/// fixed, that was over a third of a progressive photo's miss (10 MP: 86 ms of CPU, 53 ms with
/// the buffers reused; 2 MP baseline: 15 ms, 13 ms; `Scripts/miss-cpu.sh`). So blocks up to 32 MiB (the most glibc
/// takes on 64-bit; a 24 MP progressive photo's coefficients are bigger and still mapped) come
/// from the arenas and are reused, and an arena keeps up to 64 MiB free at its top before giving
/// the rest back. What stays free inside the arenas is given back every `server.heap_trim`
/// (`HeapTrimmer`), so the resident set stays bounded under hours of load; with the trim off
/// (`reusingBuffers` false) nothing would bound it, and every block of 1 MiB or more is a mapping
/// of its own again, as before. Both are fixed (glibc otherwise moves them as blocks come and go).
/// An operator's own `GLIBC_TUNABLES` setting of either, or of the arena count (or
/// `MALLOC_ARENA_MAX`), is left alone.
///
/// The daemon applies it at start (`server.heap_trim` decides `reusingBuffers`); so do the batch
/// commands that decode many photos in one process (`thumbd thumbnail`, `thumbd prepare`), which
/// end before freed buffers could pile up: 25 photos at 300x400 took 0.85 s of CPU with the
/// buffers reused against 0.93-0.98 s (45,000 page faults against 15,000).
public enum AllocatorTuning {
    public static let mmapThreshold: Int32 = 32 << 20
    public static let trimThreshold: Int32 = 64 << 20
    /// With no trim to give freed buffers back.
    public static let unpooledMmapThreshold: Int32 = 1 << 20

    /// One arena until a command has said how many threads it keeps busy (`apply`): glibc gives a
    /// thread its arena at its first allocation, so the thread that parses the command line would
    /// otherwise hold a second arena's 64 MiB for the life of the process. Called first in `main`.
    public static func startWithOneArena() {
        guard !arenaCountSetOutside else { return }
        thumbd_limit_arenas(1)
    }

    private static var arenaCountSetOutside: Bool {
        let environment = ProcessInfo.processInfo.environment
        return (environment["GLIBC_TUNABLES"] ?? "").contains("arena_max") || environment["MALLOC_ARENA_MAX"] != nil
    }

    /// True when the mmap threshold was fixed here. `busyThreads`: how many threads allocate at
    /// once, when fewer than the cores (a command making one photo); the arenas are that many.
    @discardableResult
    public static func apply(reusingBuffers: Bool = true, busyThreads: Int? = nil) -> Bool {
        let tunables = ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] ?? ""
        if !arenaCountSetOutside {
            thumbd_limit_arenas(Int32(busyThreads.map { max(1, $0) } ?? arenaCount))
        }
        if reusingBuffers, !tunables.contains("trim_threshold") { thumbd_fix_trim_threshold(trimThreshold) }
        if tunables.contains("mmap_threshold") { return false }
        return thumbd_fix_mmap_threshold(reusingBuffers ? mmapThreshold : unpooledMmapThreshold) == 1
    }

    /// glibc gives each thread that meets a locked arena a new one, up to eight per core; every
    /// arena keeps its own free holes. At 40 misses a second the resident set climbed all through a
    /// 12-minute soak (151 -> 199 MiB) with glibc's defaults and levelled off at 171-176 MiB with
    /// `MALLOC_ARENA_MAX=2`. The threads that allocate much are the CPU pool's, one per core, so
    /// they seldom wait for an arena.
    ///
    /// Each arena after the first reserves 64 MiB of address space (glibc's heap size on 64-bit).
    /// A command working on one photo has one busy thread, so it keeps to the first arena: under
    /// `ulimit -v 256M` the second arena left no room for a thread's stack, and libdispatch waits
    /// for one forever rather than failing (`thumbd thumbnail` hung in 10 of 24 runs).
    public static var arenaCount: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }
}
