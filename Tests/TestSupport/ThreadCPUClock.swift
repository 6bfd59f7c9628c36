import Foundation

/// The CPU time of the calling thread, for "this decode is quick" checks of single-threaded code:
/// unlike the wall clock it does not count the time the thread waited for a core, so a test run
/// beside others on a busy 2-core machine measures the decoder, not the machine.
public struct ThreadCPUClock: Sendable {
    public init() {}

    public var now: Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
