import ImageCore

/// The colour of a fitted photo's own edges, for bands that should look like more of its
/// background: a product on a white or grey sweep then sits on one seamless backdrop.
public enum EdgeColor {
    /// How many pixels deep the ring is read. One row can be a darker line a resize leaves at a
    /// hard edge; two double the sample and still lie within the background next to the bands.
    static let ringDepth = 2
    /// Pixels less opaque than this are skipped: what shows there is the band, not their colour.
    static let minimumAlpha: UInt8 = 128
    /// The colour when the ring holds no pixel opaque enough to judge by (a cut-out product on a
    /// transparent background): white, the bands' default.
    public static let fallback: (red: UInt8, green: UInt8, blue: UInt8) = (255, 255, 255)

    /// The per-channel median of the outermost `ringDepth` pixels of `photo` on the sides that
    /// meet the bands of a `canvasWidth` x `canvasHeight` canvas (top and bottom when the photo is
    /// shorter than the canvas, left and right when it is narrower; the whole ring when it fills it).
    ///
    /// The median, not the mean: the sweep is most of an edge, and the median is the sweep's colour
    /// even where the product, a shadow or a label reaches the edge, where a mean would be dragged
    /// toward them and give a band that matches nothing in the photo. Per channel, so 256-bin
    /// histograms find it in one pass whatever the photo's size.
    public static func median(of photo: PixelBuffer, canvasWidth: Int, canvasHeight: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let (width, height) = (photo.width, photo.height)
        let bandsAbove = height < canvasHeight, bandsBeside = width < canvasWidth
        let readRows = bandsAbove || !bandsBeside, readColumns = bandsBeside || !bandsAbove
        let rowDepth = min(ringDepth, height), columnDepth = min(ringDepth, width)

        var histograms = [Int](repeating: 0, count: 3 * 256)
        var counted = 0
        photo.pixels.withUnsafeBufferPointer { pixels in
            histograms.withUnsafeMutableBufferPointer { bins in
                func count(x: Int, y: Int) {
                    let i = (y * width + x) * PixelBuffer.bytesPerPixel
                    guard pixels[i + 3] >= minimumAlpha else { return }
                    bins[Int(pixels[i])] += 1
                    bins[256 + Int(pixels[i + 1])] += 1
                    bins[512 + Int(pixels[i + 2])] += 1
                    counted += 1
                }
                // Each pixel once: a whole row when it is in the top or bottom ring, else only the
                // columns of the left and right ring.
                for y in 0..<height {
                    if readRows && (y < rowDepth || y >= height - rowDepth) {
                        for x in 0..<width { count(x: x, y: y) }
                    } else if readColumns {
                        for x in 0..<columnDepth { count(x: x, y: y) }
                        for x in max(columnDepth, width - columnDepth)..<width { count(x: x, y: y) }
                    }
                }
            }
        }
        guard counted > 0 else { return fallback }
        let middle = (counted + 1) / 2
        func medianValue(_ channel: Int) -> UInt8 {
            var total = 0
            for value in 0..<256 {
                total += histograms[channel * 256 + value]
                if total >= middle { return UInt8(value) }
            }
            return 255
        }
        return (medianValue(0), medianValue(1), medianValue(2))
    }
}
