import ImageCore

/// A `PixelBuffer` whose pixel array has been checked against its size.
///
/// `PixelBuffer.pixels` is mutable, so the count its initialiser checked may no longer hold; every
/// loop here indexes by width and height, and must not run over a shorter array.
struct CheckedPixels {
    let width: Int
    let height: Int
    let rgba: [UInt8]

    init?(_ image: PixelBuffer) {
        guard image.width > 0, image.height > 0 else { return nil }
        let (area, areaOverflow) = image.width.multipliedReportingOverflow(by: image.height)
        let (bytes, bytesOverflow) = area.multipliedReportingOverflow(by: PixelBuffer.bytesPerPixel)
        guard !areaOverflow, !bytesOverflow, image.pixels.count == bytes else { return nil }
        width = image.width
        height = image.height
        rgba = image.pixels
    }

    var pixelCount: Int { width * height }
}
