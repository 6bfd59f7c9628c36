/// Test images with an ICC profile put in by hand, as a camera or an editor stores it.
public enum ICCTagging {
    /// `jpeg` with `profile` in APP2 `ICC_PROFILE` chunks right after SOI, numbered in `order` (by
    /// default in order), leaving out the chunk at index `dropping`.
    public static func jpeg(_ jpeg: [UInt8], profile: [UInt8], order: [Int]? = nil, dropping: Int? = nil) -> [UInt8] {
        let chunkSize = 65_519 - 14
        let chunks = stride(from: 0, to: max(profile.count, 1), by: chunkSize).map { Array(profile[$0..<min($0 + chunkSize, profile.count)]) }
        var segments: [UInt8] = []
        for index in order ?? Array(chunks.indices) where index != dropping {
            let payload = Array("ICC_PROFILE\0".utf8) + [UInt8(index + 1), UInt8(chunks.count)] + chunks[index]
            let length = payload.count + 2
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        return Array(jpeg[0..<2]) + segments + Array(jpeg[2...])
    }
}
