import DaemonTestSupport

/// Polls `condition` every millisecond for up to 10 s: these tests wait for the state they need
/// (a queued job, a waiting download), never for a time.
func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("the state waited for did not come within 10 s") }
        try await Task.sleep(for: .milliseconds(1))
    }
}
