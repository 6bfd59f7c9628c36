#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The stripes of a `MemoryCache`, each a lock and the `LRUStripe` it guards, in one allocation
/// and one 128-byte-aligned block apiece, so no two stripes share a cache line (or an
/// adjacent-line prefetch pair) and a lock taken on one core never slows a hit on another stripe
/// on the other core. Reached through a raw pointer, not an array or a class, so a hit takes no
/// reference count on a shared object (one atomic every core would fight over), only its lock.
///
/// The lock is a pthread mutex of the adaptive kind where the platform has one (glibc): it spins
/// briefly, then sleeps on a plain futex, and an unlock does not hand the lock to a sleeping
/// waiter, so whichever thread is running takes it at once. The standard library's `Mutex` on
/// Linux is a priority-inheritance futex whose unlock hands the lock to the sleeper: once more
/// threads want the cache than there are cores (request handlers, event loops and encoders on a
/// 2-core machine) and a holder is preempted, every thread that touches that stripe queues behind
/// one that is not running yet, and throughput collapses. Measured with `MemoryCacheBenchmark`,
/// 8 reader threads on 2 cores: about 0.4 million hits/s with `Mutex`, 2.5–4.9 million with this
/// lock; with one thread per core the two are within noise of each other.
struct StripeTable {
    let count: Int
    private let base: UnsafeMutableRawPointer

    private static let alignment = 128
    private static let stateOffset = (MemoryLayout<pthread_mutex_t>.size + 15) / 16 * 16
    private static let stride = (stateOffset + MemoryLayout<LRUStripe>.size + alignment - 1) / alignment * alignment

    init(count: Int, make: (Int) -> LRUStripe) {
        precondition(MemoryLayout<LRUStripe>.alignment <= 16 && MemoryLayout<pthread_mutex_t>.alignment <= 16)
        self.count = count
        base = UnsafeMutableRawPointer.allocate(byteCount: count * Self.stride, alignment: Self.alignment)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if canImport(Glibc)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        for i in 0..<count {
            let block = base + i * Self.stride
            let mutex = block.bindMemory(to: pthread_mutex_t.self, capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, &attributes)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
            (block + Self.stateOffset).bindMemory(to: LRUStripe.self, capacity: 1).initialize(to: make(i))
        }
        pthread_mutexattr_destroy(&attributes)
    }

    /// Runs `body` on stripe `index` with its lock held. `body` must be short and must not
    /// touch the cache again (the lock is not recursive).
    @inline(__always)
    func withLock<Result>(_ index: Int, _ body: (inout LRUStripe) throws -> Result) rethrows -> Result {
        let block = base + index * Self.stride
        let mutex = block.assumingMemoryBound(to: pthread_mutex_t.self)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&(block + Self.stateOffset).assumingMemoryBound(to: LRUStripe.self).pointee)
    }

    /// Destroys every stripe and frees the block; the table must not be used afterwards.
    func destroy() {
        for i in 0..<count {
            let block = base + i * Self.stride
            (block + Self.stateOffset).assumingMemoryBound(to: LRUStripe.self).deinitialize(count: 1)
            let mutex = block.assumingMemoryBound(to: pthread_mutex_t.self)
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
        base.deallocate()
    }
}
