import ImageCore

/// The signature and logical screen descriptor (the first 13 bytes), read by thumbd itself before
/// giflib opens the file, so a screen over the pixel limit is refused before anything is allocated.
struct GIFScreen {
    static let headerSize = 13
    static let signatures = [Array("GIF87a".utf8), Array("GIF89a".utf8)]

    let width: Int
    let height: Int

    /// A zero width or height is allowed: the first frame then sets the canvas (see `GIFFrame.canvas`).
    init(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) {
        let head = Array(data.prefix(6))
        guard Self.signatures.contains(head) else {
            if data.isEmpty { throw .corrupt("the GIF file is empty") }
            if Self.signatures.contains(where: { $0.starts(with: head) }) {
                throw .truncated("the GIF file ends inside its signature")
            }
            throw .corrupt("not a GIF file: it does not start with GIF87a or GIF89a")
        }
        guard data.count >= Self.headerSize else {
            throw .truncated("the GIF file (\(data.count) bytes) ends inside its logical screen descriptor")
        }
        width = Int(data[6]) | Int(data[7]) << 8
        height = Int(data[8]) | Int(data[9]) << 8
        if width > 0 && height > 0 {
            do {
                try limits.check(width: width, height: height)
            } catch {
                throw ImageError(error.code, "GIF logical screen: \(error.message)")
            }
        }
    }
}
