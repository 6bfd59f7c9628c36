import CLCMS2
import ImageCore
import Synchronization

/// Transforms by source, so that the photos of one phone model (one profile) pay for building a
/// transform once. Refusals are kept too: a hostile profile sent again costs a lookup.
final class TransformCache: Sendable {
    enum Source: Sendable {
        case icc([UInt8])
        case pngGamma(fileGamma: Double, chromaticities: [Double]?)
    }

    /// A source as the cache knows it: a profile by its length and two 64-bit hashes of its bytes
    /// (SipHash, seeded per process, so a collision cannot be aimed at), not by the bytes
    /// themselves, which may be megabytes.
    enum SourceID: Hashable, Sendable {
        case icc(length: Int, first: Int, second: Int)
        case pngGamma(fileGamma: Double, chromaticities: [Double]?)
    }

    struct Key: Hashable, Sendable {
        var source: SourceID
        var input: ColorTransform.Input

        init(source: Source, input: ColorTransform.Input) {
            switch source {
            case .icc(let bytes):
                var first = Hasher(), second = Hasher()
                first.combine(bytes)
                second.combine(0x7468_756D_6264)
                second.combine(bytes)
                self.source = .icc(length: bytes.count, first: first.finalize(), second: second.finalize())
            case .pngGamma(let gamma, let chromaticities):
                self.source = .pngGamma(fileGamma: gamma, chromaticities: chromaticities)
            }
            self.input = input
        }
    }

    enum Entry: Sendable {
        /// The source is sRGB already.
        case identity
        case transform(ColorTransform, name: String)
        case refused(ColorProblem)
    }

    private struct State: ~Copyable {
        var entries: [Key: Entry] = [:]
        var order: [Key] = []
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int = 32) { self.capacity = capacity }

    /// The entry for `key`, built under the lock the first time (lcms2 profiles are not thread-safe).
    func entry(_ key: Key, build: () -> Entry) -> Entry {
        state.withLock { state in
            if let found = state.entries[key] { return found }
            let made = build()
            state.entries[key] = made
            state.order.append(key)
            if state.order.count > capacity {
                state.entries[state.order.removeFirst()] = nil
            }
            return made
        }
    }
}
