import Foundation

/// A cache hit from either tier.
public struct CacheHit: Sendable {
    public enum Tier: String, Sendable, Codable {
        case memory, disk
    }

    public let bytes: [UInt8]
    /// Which tier answered (the `X-Cache` header).
    public let tier: Tier
    /// The TTL has run out: serve it if that is acceptable, and revalidate with `validators`
    /// (then `refresh`, or `set` new bytes).
    public let isStale: Bool
    /// What was stored with the bytes; nil only for bytes the memory tier holds without it (set on
    /// the memory tier directly).
    public let metadata: EntryMetadata?
    /// SHA-256 of the bytes, lower-case hex: an HTTP entity tag. The memory tier keeps it made, so
    /// a hit allocates no text for it.
    public let checksum: String

    public var validators: CacheValidators { metadata?.validators ?? CacheValidators() }
    public var contentType: String? { metadata?.contentType }
}

/// How many entries a removal took from each tier.
public struct CacheRemoval: Sendable, Hashable, Codable {
    public var memory: Int
    public var disk: Int

    public init(memory: Int, disk: Int) {
        self.memory = memory
        self.disk = disk
    }
}

/// Memory, then disk. A lookup asks the memory tier, then the disk tier, and promotes a disk hit
/// to memory; a store writes both. A configurable TTL marks entries stale (they keep their
/// validators for revalidation). The disk tier is optional: when it is missing, or fails (full
/// disk, unwritable directory), errors are logged (at most one line a minute) and the memory tier
/// keeps serving.
public final class TwoTierCache: Sendable {
    public let memory: MemoryCache
    public let disk: DiskCache?
    public let ttl: Duration
    private let clock: CacheClock
    private let warn: CacheWarningSink
    /// Freshness and validators of what the memory tier holds (it keeps bytes only), striped so
    /// memory hits on many threads do not meet on one lock.
    private let metadata: [DiskMutex<MetadataStripe>]
    private let failures = DiskMutex(FailureLog())

    private struct Metadata: Sendable {
        var key: CacheKey
        var stored: EntryMetadata
        /// `stored.checksum` as hex, made once.
        var checksum: String

        init(key: CacheKey, stored: EntryMetadata) {
            self.key = key
            self.stored = stored
            checksum = stored.checksum.hex
        }
    }

    private struct MetadataStripe: Sendable {
        var entries: [CacheKey: Metadata] = [:]
        /// Entries the memory tier has dropped are swept when the stripe grows past this.
        var sweepAt = TwoTierCache.metadataSweepFloor
    }

    /// A stripe is swept once it holds this many entries, or twice what the last sweep kept.
    /// Low on purpose: every miss adds an entry of ~1 KiB (its URL, validators, photo summary), and
    /// with 1,024 a stripe the 16 stripes kept up to 16k entries the memory tier had long dropped,
    /// which the soak saw as the heap growing ~0.5 MiB a minute at 4 misses a second.
    static let metadataSweepFloor = 64

    /// Entries whose metadata is kept (those the memory tier holds, and some it has dropped since
    /// the last sweep).
    @_spi(Testing) public var rememberedMetadataCount: Int {
        metadata.reduce(0) { total, stripe in total + stripe.withLock { $0.entries.count } }
    }

    private struct FailureLog: Sendable {
        var lastLogged: Double = -.infinity
        var suppressed = 0
        var total = 0
    }

    /// `ttl` defaults to the disk tier's (or `DiskCacheLimits.defaultTTL` without one).
    public init(memory: MemoryCache, disk: DiskCache?, ttl: Duration? = nil, clock: CacheClock = .system,
                warn: @escaping CacheWarningSink = CacheWarnings.standardError) {
        self.memory = memory
        self.disk = disk
        self.ttl = ttl ?? disk?.limits.ttl ?? DiskCacheLimits.defaultTTL
        self.clock = clock
        self.warn = warn
        metadata = (0..<16).map { _ in DiskMutex(MetadataStripe()) }
    }

    /// Opens the disk tier at `diskDirectory` as its owner and joins it to `memory`. If another
    /// process owns the directory, that error is thrown (two daemons must not share a cache); any
    /// other failure to open it (unwritable directory, full disk) is logged and the cache runs on
    /// memory alone. `diskDirectory` nil: memory only.
    public static func open(memory: MemoryCache = MemoryCache(), diskDirectory: URL?, diskLimits: DiskCacheLimits = DiskCacheLimits(),
                            repair: DiskRepairTiming = .beforeOpening, warmIndex: Bool = false, clock: CacheClock = .system,
                            warn: @escaping CacheWarningSink = CacheWarnings.standardError) throws(CacheError) -> TwoTierCache {
        guard let diskDirectory else { return TwoTierCache(memory: memory, disk: nil, ttl: diskLimits.ttl, clock: clock, warn: warn) }
        do {
            let disk = try DiskCache.open(at: diskDirectory, limits: diskLimits, mode: .owner, repair: repair, warmIndex: warmIndex,
                                           clock: clock, warn: warn)
            return TwoTierCache(memory: memory, disk: disk, clock: clock, warn: warn)
        } catch {
            if case .ownedByAnotherProcess = error { throw error }
            warn("the disk cache is unavailable, serving from memory only: \(error)")
            return TwoTierCache(memory: memory, disk: nil, ttl: diskLimits.ttl, clock: clock, warn: warn)
        }
    }

    public var hasDisk: Bool { disk != nil }

    /// Disk operations that failed since the start (each also logged, rate-limited).
    public var diskFailures: Int { failures.withLock { $0.total } }

    // MARK: Lookups

    public func get(_ key: CacheKey) -> CacheHit? {
        if let bytes = memory.get(key) {
            let now = clock.now()
            if let meta = stripe(key).withLock({ $0.entries[key] }) {
                return CacheHit(bytes: bytes, tier: .memory, isStale: meta.stored.isStale(ttl: ttl, now: now), metadata: meta.stored,
                                checksum: meta.checksum)
            }
            // Held without metadata (swept in a race, or set on the memory tier directly): ask the disk's map.
            if let entry = (try? disk?.read(key, .facts, countingHit: false))??.entry {
                return CacheHit(bytes: bytes, tier: .memory, isStale: entry.isStale(ttl: ttl, now: now), metadata: entry.metadata,
                                checksum: entry.checksum)
            }
            return CacheHit(bytes: bytes, tier: .memory, isStale: false, metadata: nil, checksum: Hash256.of(bytes).hex)
        }
        guard let disk else { return nil }
        let hit: DiskRead?
        do { hit = try disk.read(key, .bytes) } catch {
            report(error)
            return nil
        }
        guard let hit else { return nil }
        let entry = hit.entry
        if hit.bytes.count <= memory.maxEntryBytes, memory.limits.maxEntries > 0 {
            remember(Metadata(key: key, stored: entry.metadata))
            memory.set(key, hit.bytes)
        }
        return CacheHit(bytes: hit.bytes, tier: .disk, isStale: hit.isStale, metadata: entry.metadata, checksum: entry.checksum)
    }

    /// Whether `key` is held and fresh, without reading its bytes, counting a hit or promoting it
    /// to memory: a prefetch of a page asks this for every URL, and must not push what people are
    /// looking at out of the memory tier.
    public func isFresh(_ key: CacheKey) -> Bool { freshMetadata(key) != nil }

    /// `isFresh`, with what was stored with the entry when it is.
    public func freshMetadata(_ key: CacheKey) -> EntryMetadata? {
        let now = clock.now()
        let stored: EntryMetadata?
        if memory.contains(key), let meta = stripe(key).withLock({ $0.entries[key] }) {
            stored = meta.stored
        } else {
            stored = (try? disk?.read(key, .facts, countingHit: false))??.entry.metadata
        }
        guard let stored, !stored.isStale(ttl: ttl, now: now) else { return nil }
        return stored
    }

    /// For a server: a memory hit's bytes; or, when the memory tier is off, a checked disk file:
    /// unread when it is over `readingUpTo` bytes (to send as is), read through its kept
    /// descriptor otherwise (`DiskRead.Need.verifiedFile`); failing those, what `get` gives (a
    /// disk hit read, checked and, when the memory tier is on, promoted to it).
    public func servable(_ key: CacheKey, readingUpTo: Int) -> Servable? {
        if let disk, memory.limits.maxEntries == 0 || memory.maxEntryBytes == 0, !memory.contains(key) {
            do {
                if let file = try disk.read(key, .verifiedFile(readingUpTo: readingUpTo)) { return .file(file) }
            } catch {
                report(error)
                return nil
            }
        }
        return get(key).map(Servable.bytes)
    }

    public enum Servable: Sendable {
        case bytes(CacheHit)
        /// An entry whose file this process has checked: its `bytes`, or when those are empty
        /// (a file over the size asked for), `entry.filePath` to send as is.
        case file(DiskRead)
    }

    // MARK: Changes

    /// Stores in both tiers. A disk failure is logged; the memory tier still has the bytes.
    /// Returns the bytes' checksum (SHA-256 hex, as `CacheHit.checksum` will give it).
    @discardableResult
    public func set(_ key: CacheKey, _ bytes: [UInt8], validators: CacheValidators = CacheValidators(),
                    contentType: String? = nil, photo: PhotoSummary? = nil) -> String {
        let meta = Metadata(key: key, stored: EntryMetadata(storing: bytes, contentType: contentType, validators: validators,
                                                            at: clock.now(), photo: photo))
        remember(meta)
        memory.set(key, bytes)
        let checksum = meta.checksum
        guard let disk else { return checksum }
        do {
            try disk.store(key, bytes, metadata: meta.stored)
        } catch {
            switch error {
            case .entryTooLarge, .closed: break  // a policy, not a failure: memory only
            default: report(error)
            }
        }
        return checksum
    }

    /// The origin answered 304 Not Modified: the entry is fresh again, with `validators` if given.
    /// False if neither tier has it.
    @discardableResult
    public func refresh(_ key: CacheKey, validators: CacheValidators? = nil) -> Bool {
        let now = clock.now()
        let inMemory = stripe(key).withLock { s -> Bool in
            guard s.entries[key] != nil else { return false }
            s.entries[key]?.stored.validated = now
            if let validators { s.entries[key]?.stored.validators = validators }
            return true
        }
        var onDisk = false
        if let disk {
            do { onDisk = try disk.refresh(key, validators: validators) } catch { report(error) }
        }
        return inMemory || onDisk
    }

    @discardableResult
    public func remove(_ key: CacheKey) -> Bool {
        _ = stripe(key).withLock { $0.entries.removeValue(forKey: key) }
        let fromMemory = memory.remove(key)
        var fromDisk = false
        if let disk {
            do { fromDisk = try disk.remove(key) } catch { report(error) }
        }
        return fromMemory || fromDisk
    }

    /// Removes every variant of `url` from both tiers.
    @discardableResult
    public func removeAll(url: NormalizedURL) -> CacheRemoval { removeAll(.url(url)) }

    /// Removes every entry in `scope` from both tiers.
    @discardableResult
    public func removeAll(_ scope: CacheScope) -> CacheRemoval {
        for stripe in metadata {
            stripe.withLock { s in s.entries = s.entries.filter { !scope.contains($0.key) } }
        }
        let fromMemory = memory.removeAll(scope)
        var fromDisk = 0
        if let disk {
            do { fromDisk = try disk.removeAll(scope) } catch { report(error) }
        }
        return CacheRemoval(memory: fromMemory, disk: fromDisk)
    }

    public func clear() {
        for stripe in metadata { stripe.withLock { $0.entries.removeAll() } }
        memory.removeAll()
        if let disk {
            do { try disk.clear() } catch { report(error) }
        }
    }

    /// Tells the disk tier of the hits the memory tier answered since the last call, so each
    /// entry's hits and last access count every hit, and the disk's LRU keeps what is in use.
    /// The daemon calls this every few seconds, and `close` once more.
    public func recordMemoryHits() {
        guard let disk else { return }
        disk.recordHits(memory.drainHits())
    }

    /// Records the memory tier's last hits, then closes the disk tier (writes its access times and
    /// clean-shutdown marker).
    public func close() {
        recordMemoryHits()
        disk?.close()
    }

    // MARK: Internals

    private func stripe(_ key: CacheKey) -> DiskMutex<MetadataStripe> {
        metadata[Int(truncatingIfNeeded: UInt(bitPattern: key.hashValue) % UInt(metadata.count))]
    }

    private func remember(_ meta: Metadata) {
        stripe(meta.key).withLock { s in
            s.entries[meta.key] = meta
            guard s.entries.count > s.sweepAt else { return }
            // Forget what the memory tier no longer holds; amortized O(1) per insert.
            s.entries = s.entries.filter { memory.contains($0.key) || $0.key == meta.key }
            s.sweepAt = max(Self.metadataSweepFloor, s.entries.count * 2)
        }
    }

    private func report(_ error: CacheError) {
        let now = FileOps.monotonicSeconds()
        let message: String? = failures.withLock { f in
            f.total += 1
            guard now - f.lastLogged >= 60 else {
                f.suppressed += 1
                return nil
            }
            let suppressed = f.suppressed
            f.lastLogged = now
            f.suppressed = 0
            return "disk cache: \(error); the memory tier keeps serving"
                + (suppressed > 0 ? " (\(suppressed) more disk errors in the last minute)" : "")
        }
        if let message { warn(message) }
    }
}
