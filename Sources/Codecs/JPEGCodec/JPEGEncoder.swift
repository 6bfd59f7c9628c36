import CTurboJPEG
import ImageCore

/// JPEG encoding: 4:2:0, the given quality, optionally progressive. No metadata is written.
enum JPEGEncoder {
    static func encode(_ image: PixelBuffer, quality: Int, progressive: Bool) throws(ImageError) -> [UInt8] {
        guard EncodeSettings.qualityRange.contains(quality) else {
            throw ImageError(.invalidRequest, "JPEG quality must be 1...100, not \(quality)")
        }
        let session = try TurboJPEGSession()
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { tjFree(output) }
        let flags = progressive ? TJFLAG_PROGRESSIVE : 0
        let status = image.pixels.withUnsafeBufferPointer { source in
            tjCompress2(session.handle, source.baseAddress, Int32(image.width), 0, Int32(image.height),
                        Int32(TJPF_RGBA.rawValue), &output, &size, Int32(TJSAMP_420.rawValue), Int32(quality), flags)
        }
        guard status == 0, let output else { throw session.error() }
        return [UInt8](UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
