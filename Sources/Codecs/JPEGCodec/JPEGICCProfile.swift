import ImageCore

extension JPEGStructure {
    /// The ICC profile the APP2 chunks carry, joined by their sequence numbers (writers may store
    /// them out of order). A profile with a chunk missing, repeated or disagreeing on the count is
    /// not guessed at: the image is taken as sRGB and the reason is kept for the answer.
    var embeddedColor: EmbeddedColor {
        guard let count = iccChunks.first?.count else { return .unspecified }
        guard count > 0, iccChunks.allSatisfy({ $0.count == count }) else {
            return .unusableProfile(reason: "its ICC profile's JPEG chunks disagree on how many there are")
        }
        var ordered = [[UInt8]?](repeating: nil, count: count)
        for chunk in iccChunks {
            guard (1...count).contains(chunk.sequence), ordered[chunk.sequence - 1] == nil else {
                return .unusableProfile(reason: "its ICC profile has a JPEG chunk numbered \(chunk.sequence) of \(count) twice or out of range")
            }
            ordered[chunk.sequence - 1] = chunk.payload
        }
        if let missing = ordered.firstIndex(where: { $0 == nil }) {
            return .unusableProfile(reason: "its ICC profile's JPEG chunk \(missing + 1) of \(count) is missing")
        }
        return .iccProfile(ordered.flatMap { $0 ?? [] })
    }
}
