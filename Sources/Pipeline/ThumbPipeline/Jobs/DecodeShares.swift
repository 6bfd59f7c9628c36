import Synchronization
import ThumbCache
import Thumbnailer

/// One decode for the sizes of one photo made together: a page asks for its list, grid and zoom
/// sizes (or 1x and 2x) at once, their jobs share one download (`SharedOriginal`), and here one
/// decode, at the scale the largest of them needs. A job joins its photo's group before it waits
/// for the original, so that by the time the bytes are there the group knows every size asked;
/// the first job to reach the decode decodes for all of them, the others wait for it and make
/// their own size from the same pixels. The decoded photo is dropped when the last job leaves.
///
/// A job makes its own decode instead when the shared one cannot serve it: a different original
/// (another size, revalidated meanwhile), a size that joined after the decode and needs more
/// pixels, or a shared decode that failed or was cancelled (a corrupt file then fails each job
/// with its own, identical, error).
final class DecodeShares: Sendable {
    /// A job's place in its photo's group.
    struct Ticket: Sendable {
        fileprivate let url: NormalizedURL
        fileprivate let id: UInt64
        let request: ThumbnailRequest
    }

    /// Which original a decode was made of: the same URL with the same size and validators.
    struct Source: Sendable, Equatable {
        var byteCount: Int
        var validators: CacheValidators
    }

    private enum Decode {
        case notStarted
        case running(Source, waiters: [CheckedContinuation<DecodedPhoto?, Never>])
        /// nil: the decode failed or was cancelled.
        case finished(Source, DecodedPhoto?)
    }

    private struct Group {
        var requests: [UInt64: ThumbnailRequest] = [:]
        var decode = Decode.notStarted
    }

    private struct State {
        var groups: [NormalizedURL: Group] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let shared: @Sendable () -> Void

    /// `shared`: told each time a job makes its thumbnail from a decode another job made.
    init(shared: @escaping @Sendable () -> Void = {}) {
        self.shared = shared
    }

    /// Photos with jobs in their groups now.
    var groupCount: Int { state.withLock { $0.groups.count } }

    func join(_ url: NormalizedURL, _ request: ThumbnailRequest) -> Ticket {
        state.withLock { s in
            s.nextID += 1
            s.groups[url, default: Group()].requests[s.nextID] = request
            return Ticket(url: url, id: s.nextID, request: request)
        }
    }

    func leave(_ ticket: Ticket) {
        state.withLock { s in
            s.groups[ticket.url]?.requests[ticket.id] = nil
            if s.groups[ticket.url]?.requests.isEmpty == true { s.groups[ticket.url] = nil }
        }
    }

    /// What a job does about its photo's decode once it has the original.
    enum Role: Sendable {
        /// Decode for every size of the group (`requests`, its own among them), then `finish`.
        case lead([ThumbnailRequest])
        /// Another job is decoding this original, or has: `photo` gives it.
        case follow
        /// No shared decode can serve it (another original): it decodes alone.
        case alone
    }

    /// `ticket`'s role in its photo's decode of `source`. A leader must call `finish` whatever
    /// happens (`finish` after a finish changes nothing), or its followers wait for ever.
    func role(_ ticket: Ticket, source: Source) -> Role {
        state.withLock { s -> Role in
            guard var group = s.groups[ticket.url] else { return .alone }
            switch group.decode {
            case .notStarted:
                group.decode = .running(source, waiters: [])
                s.groups[ticket.url] = group
                return .lead(Array(group.requests.values))
            case .running(let made, _), .finished(let made, _):
                return made == source ? .follow : .alone
            }
        }
    }

    /// For a follower: the decoded photo another job made (waiting for it while it is made), or
    /// nil when it failed, was cancelled, or does not serve `ticket`'s size.
    func photo(_ ticket: Ticket) async -> DecodedPhoto? {
        let photo = await withCheckedContinuation { (continuation: CheckedContinuation<DecodedPhoto?, Never>) in
            let ready = state.withLock { s -> DecodedPhoto?? in
                switch s.groups[ticket.url]?.decode {
                case .running(let made, var waiters):
                    waiters.append(continuation)
                    s.groups[ticket.url]?.decode = .running(made, waiters: waiters)
                    return .none
                case .finished(_, let photo):
                    return .some(photo)
                case .notStarted, nil:
                    return .some(nil)
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
        guard let photo, photo.serves(ticket.request) else { return nil }
        shared()
        return photo
    }

    /// For a leader: hands its decode (nil: it failed or never ran) to the jobs waiting for it.
    /// Only the first call counts.
    func finish(_ ticket: Ticket, _ photo: DecodedPhoto?) {
        finish(ticket.url, photo)
    }

    private func finish(_ url: NormalizedURL, _ photo: DecodedPhoto?) {
        let waiters = state.withLock { s -> [CheckedContinuation<DecodedPhoto?, Never>] in
            guard case .running(let made, let waiters) = s.groups[url]?.decode else { return [] }
            s.groups[url]?.decode = .finished(made, photo)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: photo) }
    }
}
