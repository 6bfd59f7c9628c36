import Synchronization

/// Stops asking a shared tier that keeps failing. After `failures` reads in a row failed or timed
/// out, the breaker opens: for `window` every read is a miss at once and every write is skipped,
/// so a hung tier costs one timeout per window instead of one per miss. When the window is over,
/// the next read still answers at once and sends one probe to the tier beside it (half-open): an
/// answer (found or not) closes the breaker, a failure opens it again for twice as long (at most
/// `maxWindow`).
final class SharedTierBreaker: Sendable {
    enum State: String, Sendable, Codable {
        case closed, open
        case halfOpen = "half-open"
    }

    struct Settings: Sendable {
        var failures = 3
        var window: Duration = .seconds(5)
        var maxWindow: Duration = .seconds(60)
    }

    convenience init(_ tier: SharedTierSettings) {
        self.init(Settings(failures: tier.breakerFailures, window: tier.breakerWindow))
    }

    /// What a read should do now.
    enum Admission: Equatable {
        case ask
        case skip
        /// Skip, and send one probe beside it.
        case probe
    }

    /// A change of state, for the log.
    enum Transition: Equatable {
        case opened(failures: Int, window: Duration)
        case reopened(window: Duration)
        case closed(wasOpenFor: Duration)
    }

    private struct Inner {
        var state = State.closed
        var consecutiveFailures = 0
        var window: Duration
        var openedAt: ContinuousClock.Instant?
        var retryAt: ContinuousClock.Instant?
    }

    let settings: Settings
    private let inner: Mutex<Inner>

    init(_ settings: Settings = Settings()) {
        self.settings = settings
        inner = Mutex(Inner(window: settings.window))
    }

    var state: State { inner.withLock { $0.state } }

    func admitRead(now: ContinuousClock.Instant = .now) -> Admission {
        inner.withLock { s in
            switch s.state {
            case .closed: return .ask
            case .halfOpen: return .skip
            case .open:
                guard let retryAt = s.retryAt, now >= retryAt else { return .skip }
                s.state = .halfOpen
                return .probe
            }
        }
    }

    /// Writes go only to a tier that answers.
    var admitsWrites: Bool { state == .closed }

    /// The tier answered (a thumbnail, or 404).
    func succeeded(now: ContinuousClock.Instant = .now) -> Transition? {
        inner.withLock { s in
            s.consecutiveFailures = 0
            guard s.state != .closed else { return nil }
            let openFor = s.openedAt.map { now - $0 } ?? .zero
            s.state = .closed
            s.window = settings.window
            s.openedAt = nil
            s.retryAt = nil
            return .closed(wasOpenFor: openFor)
        }
    }

    /// A read failed or timed out.
    func failed(now: ContinuousClock.Instant = .now) -> Transition? {
        inner.withLock { s in
            switch s.state {
            case .open:
                return nil  // a read that started before the breaker opened
            case .halfOpen:
                s.window = min(s.window * 2, settings.maxWindow)
                s.state = .open
                s.retryAt = now + s.window
                return .reopened(window: s.window)
            case .closed:
                s.consecutiveFailures += 1
                guard s.consecutiveFailures >= settings.failures else { return nil }
                s.state = .open
                s.openedAt = now
                s.retryAt = now + s.window
                return .opened(failures: s.consecutiveFailures, window: s.window)
            }
        }
    }
}
