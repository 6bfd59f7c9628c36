import Synchronization
import ThumbPipeline

/// Thumbnail answers by the tier that had them, the same count as `thumbd_thumbnail_responses_total`,
/// kept where the inspector can read it (a Prometheus counter cannot be read back).
final class AnswerTally: Sendable {
    struct Counts: Sendable, Equatable {
        var memory = 0, disk = 0, shared = 0, made = 0
    }

    private let memory = Atomic<Int>(0)
    private let disk = Atomic<Int>(0)
    private let shared = Atomic<Int>(0)
    private let made = Atomic<Int>(0)

    func count(_ source: PipelineResult.Source) {
        switch source {
        case .memory: memory.add(1, ordering: .relaxed)
        case .disk: disk.add(1, ordering: .relaxed)
        case .shared: shared.add(1, ordering: .relaxed)
        case .miss: made.add(1, ordering: .relaxed)
        }
    }

    var counts: Counts {
        Counts(memory: memory.load(ordering: .relaxed), disk: disk.load(ordering: .relaxed),
               shared: shared.load(ordering: .relaxed), made: made.load(ordering: .relaxed))
    }
}
