import Synchronization
import ThumbCache

/// At most one job per key: whoever asks while a job for that key is under way waits for it
/// instead of starting another. Thumbnails are coalesced per (URL, variant); downloads of originals
/// per URL, so that the 1x and 2x thumbnails a page asks for at once share one download.
final class JobTable<Value: Sendable>: Sendable {
    /// Counted when a job starts, when a caller joins one under way, and when the last waiter leaves.
    struct Events: Sendable {
        var started: @Sendable () -> Void = {}
        var joined: @Sendable () -> Void = {}
        var abandoned: @Sendable () -> Void = {}
    }

    private let jobs = Mutex<[CacheKey: Job<Value>]>([:])
    private let limit: Int?
    private let events: Events

    /// `limit`: jobs at once; one more throws `PipelineBusy`. nil: unbounded (bounded by the callers).
    init(limit: Int?, events: Events = Events()) {
        self.limit = limit
        self.events = events
    }

    var count: Int { jobs.withLock { $0.count } }

    /// The result of the job for `key`, started with `work` if none is under way. `settle` runs after
    /// every waiter has its answer and before the key is free again: a caller arriving meanwhile is
    /// answered from the finished job rather than starting the work anew (the pipeline stores a
    /// downloaded original there, so no later thumbnail misses both the job and the disk).
    func run(_ key: CacheKey, priority: WorkPriority,
             work: @escaping @Sendable (Job<Value>) async throws -> Value,
             settle: (@Sendable (Value) async -> Void)? = nil) async throws -> Value {
        while true {
            let (job, id, isNew) = try jobs.withLock { table throws -> (Job<Value>, UInt64?, Bool) in
                if let existing = table[key] { return (existing, existing.join(priority: priority), false) }
                if let limit, table.count >= limit { throw PipelineBusy(jobs: limit) }
                let job = Job<Value>(key: key, priority: priority)
                table[key] = job
                return (job, job.join(priority: priority), true)
            }
            guard let id else {
                // Abandoned a moment ago by its last waiter: forget it and start afresh.
                remove(job)
                continue
            }
            if isNew {
                events.started()
                job.start(Task { [self] in
                    let result: Result<Value, any Error>
                    do { result = .success(try await work(job)) } catch { result = .failure(error) }
                    guard case .success(let value) = result, let settle else {
                        remove(job)
                        job.finish(result)
                        return
                    }
                    job.finish(result)
                    await settle(value)
                    remove(job)
                })
            } else {
                events.joined()
            }
            return try await job.wait(id) { [self] in
                events.abandoned()
                remove(job)
            }
        }
    }

    private func remove(_ job: Job<Value>) {
        jobs.withLock { table in if table[job.key] === job { table[job.key] = nil } }
    }
}
