#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// posix_spawn attributes that start a child as a shell would: no signal blocked, and the signals
/// that stop a program at their defaults. A thread of the Swift runtime or Dispatch blocks signals,
/// and a program that handles SIGTERM through Dispatch ignores it; a child inherits both the mask of
/// the thread that spawns it and what is ignored, and would never see the SIGTERM that stops it.
final class SpawnAttributes {
    var raw = posix_spawnattr_t()

    init() {
        posix_spawnattr_init(&raw)
        var unblocked = sigset_t(), defaults = sigset_t()
        sigemptyset(&unblocked)
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&raw, &unblocked)
        posix_spawnattr_setsigdefault(&raw, &defaults)
        posix_spawnattr_setflags(&raw, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    deinit { posix_spawnattr_destroy(&raw) }
}
