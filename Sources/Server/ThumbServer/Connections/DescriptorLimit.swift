#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit of open descriptors (RLIMIT_NOFILE), raised at start-up to what the
/// connection cap needs: each client connection is one descriptor.
enum DescriptorLimit {
    /// Descriptors for everything but client connections: the cache's kept files (an eighth of the
    /// limit at most), its index and logs, downloads, the fleet's connections.
    static let reserve = 1024

    struct Outcome: Equatable {
        /// The soft limit now in force.
        var soft: Int
        var hard: Int
        /// The connection cap the limit allows: the configured one, or lower when even the hard
        /// limit is short of it.
        var maxConnections: Int
    }

    /// Raises the soft limit as far as `maxConnections` needs (never past the hard limit, never lowered).
    static func raise(for maxConnections: Int) -> Outcome {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            return Outcome(soft: 1024, hard: 1024, maxConnections: min(maxConnections, 1024 - reserve / 4))
        }
        let cap = rlim_t(Int32.max)
        let (soft, hard) = (min(limit.rlim_cur, cap), min(limit.rlim_max, cap))
        let wanted = min(rlim_t(maxConnections + reserve), hard)
        if wanted > soft {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 {
                return outcome(soft: Int(wanted), hard: Int(hard), maxConnections: maxConnections)
            }
        }
        return outcome(soft: Int(soft), hard: Int(hard), maxConnections: maxConnections)
    }

    private static func outcome(soft: Int, hard: Int, maxConnections: Int) -> Outcome {
        // With a small limit, connections get what the reserve leaves, and at least half of it.
        let room = max(soft - reserve, soft / 2)
        return Outcome(soft: soft, hard: hard, maxConnections: min(maxConnections, room))
    }
}
