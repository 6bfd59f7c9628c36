import Synchronization

/// Requests someone is waiting for go ahead of prefetches, in the download slots and in the CPU queue.
public enum WorkPriority: Int, Sendable, Comparable, Codable {
    case prefetch = 0
    case interactive = 1

    public static func < (lhs: WorkPriority, rhs: WorkPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A job's priority, shared with the queues it waits in, so that an interactive request joining a
/// prefetch job moves that job forward wherever it is waiting.
public final class PriorityCell: Sendable {
    private let value: Mutex<WorkPriority>

    public init(_ priority: WorkPriority) { value = Mutex(priority) }

    public var current: WorkPriority { value.withLock { $0 } }

    /// Only ever raises.
    public func raise(to priority: WorkPriority) {
        value.withLock { if priority > $0 { $0 = priority } }
    }
}

extension Array {
    /// The first element of the highest current priority among those `eligible` allows: the next
    /// one a priority queue serves.
    func indexOfNext(priority: (Element) -> WorkPriority, eligible: (Element) -> Bool = { _ in true }) -> Int? {
        var best: (index: Int, priority: WorkPriority)?
        for (index, element) in enumerated() where eligible(element) {
            let current = priority(element)
            if let leader = best, current <= leader.priority { continue }
            best = (index, current)
            if current == .interactive { break }
        }
        return best?.index
    }
}
