import Testing
@testable import ThumbPipeline

/// The shared tier's breaker on its own: when it opens, what it lets through, how it probes.
struct SharedTierBreakerTests {
    let start = ContinuousClock.now

    @Test func opensAfterFailuresInARowAndSkipsForItsWindow() {
        let breaker = SharedTierBreaker(.init(failures: 3, window: .seconds(5), maxWindow: .seconds(60)))
        #expect(breaker.failed(now: start) == nil && breaker.failed(now: start) == nil)
        #expect(breaker.succeeded(now: start) == nil, "a success in between starts the count again")
        #expect(breaker.failed(now: start) == nil && breaker.failed(now: start) == nil)
        #expect(breaker.failed(now: start) == .opened(failures: 3, window: .seconds(5)))
        #expect(breaker.state == .open && !breaker.admitsWrites)
        #expect(breaker.admitRead(now: start + .seconds(4)) == .skip)
        #expect(breaker.failed(now: start + .seconds(1)) == nil, "a read from before the opening changes nothing")
    }

    @Test func probesOnceAfterTheWindowThenClosesOrOpensForLonger() {
        let breaker = SharedTierBreaker(.init(failures: 1, window: .seconds(5), maxWindow: .seconds(12)))
        _ = breaker.failed(now: start)
        #expect(breaker.admitRead(now: start + .seconds(5)) == .probe)
        #expect(breaker.state == .halfOpen)
        #expect(breaker.admitRead(now: start + .seconds(5)) == .skip, "one probe at a time")
        #expect(breaker.failed(now: start + .seconds(6)) == .reopened(window: .seconds(10)))
        #expect(breaker.admitRead(now: start + .seconds(15)) == .skip)
        #expect(breaker.admitRead(now: start + .seconds(16)) == .probe)
        #expect(breaker.failed(now: start + .seconds(16)) == .reopened(window: .seconds(12)), "the window stops at its maximum")
        #expect(breaker.admitRead(now: start + .seconds(28)) == .probe)
        #expect(breaker.succeeded(now: start + .seconds(29)) == .closed(wasOpenFor: .seconds(29)))
        #expect(breaker.state == .closed && breaker.admitsWrites && breaker.admitRead(now: start + .seconds(29)) == .ask)
        // Closed again, it opens with its first window.
        #expect(breaker.failed(now: start + .seconds(30)) == .opened(failures: 1, window: .seconds(5)))
    }
}
