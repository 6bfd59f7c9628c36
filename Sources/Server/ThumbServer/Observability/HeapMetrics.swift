import CMallocTuning
import Prometheus

/// What malloc holds, summed over its arenas (glibc's mallinfo2).
struct HeapUsage: Sendable {
    /// Handed out and not yet freed, blocks in mappings of their own included.
    var inUse: Int
    /// Kept free in the arenas for reuse: resident once touched, until trimmed.
    var freeInArenas: Int
    /// The arenas and the mapped blocks together.
    var fromSystem: Int

    /// nil where the C library cannot say (not glibc).
    static func current() -> HeapUsage? {
        var usage = thumbd_heap_usage()
        guard thumbd_read_heap_usage(&usage) == 1 else { return nil }
        return HeapUsage(inUse: Int(usage.in_use), freeInArenas: Int(usage.free_in_arenas), fromSystem: Int(usage.from_system))
    }
}

/// The allocator's own totals, read at scrape time: beside the resident set they tell a leak
/// (bytes in use climbing) from fragmentation (free bytes kept in the arenas climbing). And how
/// often `HeapTrimmer` gave free pages back.
final class HeapMetrics: Sendable {
    private let inUse: Gauge
    private let free: Gauge
    private let fromSystem: Gauge
    let trims: Counter

    init(registry: PrometheusCollectorRegistry) {
        inUse = registry.makeGauge(descriptor: metric("heap_in_use", unit: "bytes",
                                                      help: "Bytes malloc has handed out and not had back (glibc mallinfo2; 0 where the C library cannot say)"))
        free = registry.makeGauge(descriptor: metric("heap_free", unit: "bytes",
                                                     help: "Bytes malloc's arenas keep free for reuse (glibc mallinfo2; 0 where the C library cannot say)"))
        fromSystem = registry.makeGauge(descriptor: metric("heap_from_system", unit: "bytes",
                                                           help: "Bytes malloc holds from the system: arenas and mapped blocks (glibc mallinfo2; 0 where the C library cannot say)"))
        trims = registry.makeCounter(descriptor: metric("heap_trims", unit: "total",
                                                        help: "Times the free pages inside malloc's arenas were given back to the system (server.heap_trim)"))
    }

    func update() {
        guard let usage = HeapUsage.current() else { return }
        inUse.set(Double(usage.inUse))
        free.set(Double(usage.freeInArenas))
        fromSystem.set(Double(usage.fromSystem))
    }
}
