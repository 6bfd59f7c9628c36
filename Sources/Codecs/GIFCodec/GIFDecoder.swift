import ImageCore

/// The first frame of a GIF, read record by record through giflib: never DGifSlurp, which decodes
/// every frame of an animation. The frame's pixels are decoded a row at a time straight onto the
/// canvas; what follows them is only scanned for a second image descriptor.
enum GIFDecoder {
    static func readInfo(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        let screen = try GIFScreen(data, limits: limits)
        let file = try GIFLibFile(data)
        let frame = try file.firstFrame(screen: screen, limits: limits)
        try file.skipImageData()
        return frame.info(hasAlpha: frame.mayHaveAlpha, isAnimated: file.anotherImageFollows())
    }

    static func decode(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> DecodedImage {
        let screen = try GIFScreen(data, limits: limits)
        let file = try GIFLibFile(data)
        let frame = try file.firstFrame(screen: screen, limits: limits)
        try limits.check(decodeBytes: frame.decodeBytes, what: "a \(frame.canvasWidth)x\(frame.canvasHeight) GIF")
        guard file.remainingBytes >= frame.minimumDataBytes else {
            throw .truncated("the GIF's \(frame.descriptor.width)x\(frame.descriptor.height) first frame needs at least \(frame.minimumDataBytes) bytes of LZW data; the file holds \(file.remainingBytes) more")
        }
        let (pixels, sawTransparentIndex) = try composite(file, frame)
        let hasAlpha = sawTransparentIndex || !frame.coversCanvas
        let image = PixelBuffer(width: frame.canvasWidth, height: frame.canvasHeight, hasAlpha: hasAlpha, pixels: pixels)
        return DecodedImage(info: frame.info(hasAlpha: hasAlpha, isAnimated: file.anotherImageFollows()), pixels: image,
                            color: .unspecified)
    }

    /// Decodes the frame's rows onto a transparent canvas at the frame's offset. Pixels of the
    /// transparent index stay transparent; the background colour is ignored, as browsers do. An index
    /// past the colour table reads opaque black (the table is padded with black to 256 entries).
    private static func composite(_ file: borrowing GIFLibFile, _ frame: GIFFirstFrame) throws(ImageError) -> (pixels: [UInt8], sawTransparentIndex: Bool) {
        let d = frame.descriptor
        let canvasWidth = frame.canvasWidth
        var rgba = [UInt8](repeating: 0, count: canvasWidth * frame.canvasHeight * PixelBuffer.bytesPerPixel)
        var line = [UInt8](repeating: 0, count: d.width)
        let transparent = frame.transparentIndex ?? -1
        var sawTransparentIndex = false
        for row in frame.rowOrder {
            try file.readLine(into: &line)
            var target = ((d.top + row) * canvasWidth + d.left) * 4
            for x in 0..<d.width {
                let index = Int(line[x])
                if index == transparent {
                    sawTransparentIndex = true
                } else {
                    rgba[target] = d.colors[index * 3]
                    rgba[target + 1] = d.colors[index * 3 + 1]
                    rgba[target + 2] = d.colors[index * 3 + 2]
                    rgba[target + 3] = 255
                }
                target += 4
            }
        }
        return (rgba, sawTransparentIndex)
    }
}
