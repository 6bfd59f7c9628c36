import Foundation
import Testing
import HeapTuning
@testable import ThumbServer

@Suite("malloc tuning and the heap's totals")
struct AllocatorTuningTests {
    #if os(Linux)
    /// Guards against a silent no-op: the C helper once tested `__GLIBC__` before including any C
    /// library header, so under glibc it read "not glibc" and none of its settings took.
    @Test("under glibc the settings take, and the heap's totals follow a large block")
    func glibcTakesTheSettings() throws {
        let tunables = ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] ?? ""
        if !tunables.contains("mmap_threshold") {
            #expect(AllocatorTuning.apply())
        }
        let start = try #require(HeapUsage.current())
        #expect(start.inUse > 0)
        #expect(start.fromSystem >= start.inUse)
        // Over the fixed threshold a block has a mapping of its own, counted in use while held.
        // Other tests allocate and free meanwhile, so a few tries are allowed.
        let blockBytes = 64 << 20
        var grewBy: [Int] = []
        for _ in 0..<3 {
            let before = try #require(HeapUsage.current())
            let block = UnsafeMutableRawPointer.allocate(byteCount: blockBytes, alignment: 16)
            let held = try #require(HeapUsage.current())
            block.deallocate()
            grewBy.append(held.inUse - before.inUse)
            if grewBy.last! >= blockBytes * 3 / 4 { break }
        }
        #expect(grewBy.contains { $0 >= blockBytes * 3 / 4 }, "in-use growth per try: \(grewBy)")
    }

    /// Under the threshold a miss's buffer comes from an arena and stays there once freed, for the
    /// next miss to reuse without faulting its pages in again (a mapping of its own would be gone).
    @Test("a decode-sized block freed stays in the arena for the next one")
    func aFreedBufferIsKeptForReuse() throws {
        let tunables = ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] ?? ""
        guard !tunables.contains("mmap_threshold"), !tunables.contains("trim_threshold") else { return }
        #expect(AllocatorTuning.apply())
        let blockBytes = 16 << 20
        var keptBy: [Int] = []
        for _ in 0..<3 {
            let block = UnsafeMutableRawPointer.allocate(byteCount: blockBytes, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: 1, count: blockBytes)
            let held = try #require(HeapUsage.current())
            block.deallocate()
            let freed = try #require(HeapUsage.current())
            keptBy.append(freed.freeInArenas - held.freeInArenas)
            if keptBy.last! >= blockBytes * 3 / 4 { break }
        }
        #expect(keptBy.contains { $0 >= blockBytes * 3 / 4 }, "free bytes the arenas kept per try: \(keptBy)")
    }
    #endif
}

@Suite("the heap trimmer")
struct HeapTrimmerTests {
    #if os(Linux)
    @Test("with server.heap_trim set, the daemon gives free pages back on its own and counts it")
    func trimsOnItsOwn() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true) { $0.server.heapTrimInterval = .milliseconds(50) }
        // Holes between blocks still held, as decode buffers leave them: only a trim gives their
        // pages back.
        let blocks = (0..<2_048).map { _ in UnsafeMutableRawPointer.allocate(byteCount: 8 * 1024, alignment: 16) }
        for (index, block) in blocks.enumerated() where index.isMultiple(of: 2) { block.deallocate() }
        defer { for (index, block) in blocks.enumerated() where !index.isMultiple(of: 2) { block.deallocate() } }
        #expect((HeapUsage.current()?.freeInArenas ?? 0) > HeapTrimmer.minimumFree)
        let trimmed = try await daemon.metrics(within: .seconds(10), interval: .milliseconds(50)) { ($0["thumbd_heap_trims_total"] ?? 0) >= 2 }
        #expect((trimmed["thumbd_heap_trims_total"] ?? 0) >= 2)
        try await daemon.stop()
    }
    #endif

    @Test("with server.heap_trim 0 the daemon never trims and still serves until it is stopped")
    func offMeansNever() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true) { $0.server.heapTrimInterval = .zero }
        try await Task.sleep(for: .milliseconds(300))
        // A service that returned at once would have stopped the whole group by now.
        #expect(try await daemon.get("/healthz").status == 200)
        #expect(try await daemon.metrics()["thumbd_heap_trims_total"] == 0)
        try await daemon.stop()
    }
}
