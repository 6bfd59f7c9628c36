// A child process for the disk cache's crash tests (Tests/ThumbCacheTests/Crash*.swift).
//
//   thumbd-cache-crash-writer write DIR SEED FSYNC   stores, removes, refreshes and looks up entries in a
//                                                     loop until killed; prints "ready" once the cache is open
//   thumbd-cache-crash-writer hold DIR COUNT          owns DIR, stores COUNT entries, prints "ready", and waits
//                                                     for standard input to close, then closes cleanly
//   thumbd-cache-crash-writer fsize DIR BYTES         stores entries under RLIMIT_FSIZE = BYTES (real write
//                                                     errors), prints "stored=N failed=M", closes, exits 0
//
// Every entry's bytes describe themselves (see `CrashPayload`), so the parent can tell that what
// the cache serves is exactly what this process wrote for that key: the generator (TestSupport)
// is shared with the tests.
import Foundation
import TestSupport
import ThumbCache
#if canImport(Glibc)
import Glibc
#endif



func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("thumbd-cache-crash-writer: \(message)\n".utf8))
    exit(3)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: write DIR SEED FSYNC | hold DIR COUNT | fsize DIR BYTES") }
let directory = URL(fileURLWithPath: arguments[2])

switch arguments[1] {
case "write":
    guard arguments.count >= 5, let seed = UInt64(arguments[3]), let policy = FsyncPolicy(rawValue: arguments[4]) else { fail("bad arguments") }
    var limits = CrashKeys.limits
    limits.fsync = policy
    let cache: DiskCache
    do { cache = try DiskCache.open(at: directory, limits: limits, warn: { _ in }) } catch { fail("open: \(error)") }
    say("ready")
    var random = SeededRandom(seed: seed)
    var generation = seed << 32
    let started = Date()
    while Date().timeIntervalSince(started) < 60 {  // the parent kills us long before
        let i = Int.random(in: 0..<24, using: &random)
        let variant = Int.random(in: 0..<CrashKeys.variants.count, using: &random)
        let key = CrashKeys.key(i, variant)
        let roll = Int.random(in: 0..<100, using: &random)
        do {
            switch roll {
            case 0..<60:
                generation += 1
                let length = variant == 3 ? Int.random(in: 2000...16000, using: &random) : Int.random(in: 200...6000, using: &random)
                let bytes = CrashPayload.make(digest: key.digest, generation: generation, bodyLength: length)
                try cache.store(key, bytes, validators: CacheValidators(etag: "\"g\(generation)\""), contentType: "application/x-thumbd-test")
            case 60..<75:
                _ = try cache.read(key, .bytes)
            case 75..<83:
                try cache.remove(key)
            case 83..<86:
                try cache.removeAll(url: CrashKeys.url(i))
            case 86..<92:
                try cache.refresh(key)
            case 92..<93:
                try cache.flushAccessLog()
            default:
                _ = try cache.read(key, .bytes)
            }
        } catch {
            fail("operation failed: \(error)")
        }
    }
    fail("was not killed within 60 seconds")

case "hold":
    guard let count = Int(arguments[3]) else { fail("bad count") }
    let cache: DiskCache
    do { cache = try DiskCache.open(at: directory, limits: CrashKeys.limits, warn: { _ in }) } catch { fail("open: \(error)") }
    do {
        for i in 0..<count {
            let key = CrashKeys.key(i, 0)
            try cache.store(key, CrashPayload.make(digest: key.digest, generation: UInt64(i + 1), bodyLength: 500 + i),
                            validators: CacheValidators(etag: "\"g\(i + 1)\""))
        }
    } catch {
        fail("store: \(error)")
    }
    say("ready")
    while let line = readLine() {
        if line == "quit" { break }
    }
    cache.close()
    say("closed")

case "fsize":
    guard let limit = Int(arguments[3]) else { fail("bad limit") }
    signal(SIGXFSZ, SIG_IGN)
    var bound = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
    guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &bound) == 0 else { fail("setrlimit failed") }
    var limits = DiskCacheLimits(maxBytes: 1 << 30, originalsMaxBytes: 1 << 30)
    limits.accessFlushBatch = 4
    let cache: DiskCache
    do { cache = try DiskCache.open(at: directory, limits: limits, warn: { _ in }) } catch { fail("open: \(error)") }
    var stored = 0, failed = 0
    var random = SeededRandom(seed: 42)
    for n in 0..<600 {
        // New keys, and every fifth store replaces an earlier one.
        let key = n % 5 == 4 ? CrashKeys.key(n / 2, (n / 2) % 4) : CrashKeys.key(n, n % 4)
        // Mostly small entries; every tenth is larger than the file-size limit.
        let length = n % 10 == 9 ? limit + Int.random(in: 1...4096, using: &random) : Int.random(in: 100...3000, using: &random)
        let bytes = CrashPayload.make(digest: key.digest, generation: UInt64(n + 1), bodyLength: length)
        do {
            try cache.store(key, bytes, validators: CacheValidators(etag: "\"g\(n + 1)\""))
            stored += 1
        } catch {
            failed += 1
        }
        if n % 7 == 0 { _ = try? cache.read(CrashKeys.key(n / 3, (n / 3) % 4), .bytes) }
    }
    cache.close()
    say("stored=\(stored) failed=\(failed)")

default:
    fail("unknown mode \(arguments[1])")
}
