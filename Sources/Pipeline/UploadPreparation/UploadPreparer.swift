import ImageCodecs
import ImageCore
import ImageOps
import Thumbnailer

/// Makes a seller's photos ready for upload: upright, without metadata, square when asked, the
/// longest side capped, each within the byte budget, and all of them or none.
public enum UploadPreparer {
    /// Runs one image's CPU-bound work somewhere other than the caller's thread (the daemon's CPU
    /// pool, a command's own threads) and hands back its result.
    public typealias Runner = @Sendable (_ work: @escaping @Sendable () throws -> PreparedImage) async throws -> PreparedImage

    /// Called as an image's pixels start to be decoded; tests count decodes with it.
    public typealias DecodeObserver = @Sendable (ImageReference) -> Void

    /// The count rule, checked before anything is read: 1 to `settings.maxImages` images.
    public static func checkCount(_ count: Int, settings: UploadSettings) throws(UploadError) {
        if count == 0 {
            throw UploadError(.noImages, "no images given: a product needs 1 to \(settings.maxImages)")
        }
        if count > settings.maxImages {
            throw UploadError(.tooManyImages, "\(count) images given: a product takes at most \(settings.maxImages)")
        }
    }

    /// Header-level rules for one original, before any pixel is decoded: its size in bytes, a format
    /// thumbd reads, and dimensions under the pixel limit.
    public static func checkOriginal(_ source: SourceImage, at reference: ImageReference,
                                     settings: UploadSettings) throws(UploadError) -> ImageInfo {
        guard source.bytes.count <= settings.maxImageBytes else {
            throw UploadError(.imageTooLarge, "the file is \(source.bytes.count) bytes, over the limit of \(settings.maxImageBytes)",
                              image: reference)
        }
        do {
            return try ImageCodecs.readInfo(source.bytes, limits: settings.limits)
        } catch {
            throw UploadError(error, image: reference)
        }
    }

    /// The whole batch: the count, then every original's header, then the images in parallel through
    /// `run`. Throws the first failure by position (an `UploadError` naming the image) and returns
    /// nothing then: the caller writes all the images or none.
    public static func prepare(_ sources: [SourceImage], settings: UploadSettings,
                               onDecode: DecodeObserver? = nil, run: @escaping Runner) async throws -> [PreparedImage] {
        try settings.validate()
        try checkCount(sources.count, settings: settings)
        let references = sources.indices.map { ImageReference(position: $0 + 1, name: sources[$0].name) }
        let infos = try sources.indices.map { (i) throws(UploadError) in
            try checkOriginal(sources[i], at: references[i], settings: settings)
        }
        return try await withThrowingTaskGroup(of: (Int, PreparedImage).self) { group in
            for index in sources.indices {
                let source = sources[index], reference = references[index], info = infos[index]
                group.addTask {
                    let image = try await run {
                        try prepare(source, info: info, as: reference, settings: settings, onDecode: onDecode)
                    }
                    return (index, image)
                }
            }
            var prepared = [PreparedImage?](repeating: nil, count: sources.count)
            do {
                for try await (index, image) in group { prepared[index] = image }
            } catch {
                // Fail fast: what is still queued never starts; nothing is handed back.
                group.cancelAll()
                throw error
            }
            return prepared.map { $0! }
        }
    }

    /// One image, synchronously (CPU-bound).
    public static func prepare(_ source: SourceImage, info: ImageInfo, as reference: ImageReference,
                               settings: UploadSettings, onDecode: DecodeObserver? = nil) throws(UploadError) -> PreparedImage {
        do {
            return try prepareImage(source, info: info, as: reference, settings: settings, onDecode: onDecode)
        } catch let error as UploadError {
            throw UploadError(error.code, error.message, image: error.image ?? reference)
        } catch let error as ImageError {
            throw UploadError(error, image: reference)
        } catch {
            throw UploadError(.encodeFailed, "\(error)", image: reference)
        }
    }

    private static func prepareImage(_ source: SourceImage, info: ImageInfo, as reference: ImageReference,
                                     settings: UploadSettings, onDecode: DecodeObserver?) throws -> PreparedImage {
        let metadata = try ImageCodecs.metadata(in: source.bytes) ?? []
        var prepared = PreparedImage(source: reference, sourceInfo: info, sourceBytes: source.bytes.count,
                                     removedMetadata: metadata, bytes: source.bytes, format: info.format,
                                     width: info.width, height: info.height, quality: nil, action: .passedThrough, steps: [])

        // A profile other than sRGB must be applied, not dropped with the metadata: such a photo is encoded.
        if settings.passThrough, meetsEveryRuleButMetadata(info, byteCount: source.bytes.count, settings: settings),
           try !ImageCodecs.needsColorConversion(source.bytes) {
            if metadata.isEmpty {
                onDecode?(reference)
                try checkDecodesOrAddExtras(source.bytes, info: info, to: &prepared, settings: settings)
                prepared.removedMetadata = []
                return prepared
            }
            if info.format == .jpeg {
                prepared.bytes = try ImageCodecs.removingJPEGMetadata(source.bytes)
                prepared.action = .metadataRemoved
                onDecode?(reference)
                try checkDecodesOrAddExtras(prepared.bytes, info: info, to: &prepared, settings: settings)
                return prepared
            }
        }

        onDecode?(reference)
        let pixels = try renderedPixels(source.bytes, renderRequest(for: info, settings: settings), into: &prepared, settings: settings)
        let result = try encodeWithinBudget(pixels, settings: settings, minSide: settings.minSide)
        prepared.bytes = result.bytes
        prepared.format = settings.format.imageFormat
        prepared.width = result.width
        prepared.height = result.height
        prepared.quality = result.quality
        prepared.action = .encoded
        prepared.steps = result.steps
        // Never larger than the photo itself, which the budget may have shrunk below its pixels.
        prepared.extras = try extras(of: pixels, settings: settings, longestSide: max(result.width, result.height))
        return prepared
    }

    /// The request's pixels, sRGB and (for JPEG) flattened onto white, ready to encode.
    private static func renderedPixels(_ bytes: [UInt8], _ request: ThumbnailRequest, into prepared: inout PreparedImage,
                                       settings: UploadSettings) throws -> PixelBuffer {
        // No placeholder is sent with an upload: a square crop of a JPEG decodes only its window.
        let rendered = try Thumbnailer.render(from: bytes, request, placeholder: false)
        prepared.color = rendered.color.headerValue
        return settings.format == .jpeg ? rendered.pixels.flattened() : rendered.pixels
    }

    private static func encodeWithinBudget(_ pixels: PixelBuffer, settings: UploadSettings,
                                           minSide: Int) throws -> (bytes: [UInt8], width: Int, height: Int, quality: Int, steps: [EncodeStep]) {
        let format = settings.format
        var search = BudgetSearch(budget: settings.budgetBytes, ceiling: settings.qualityCeiling, floor: settings.qualityFloor,
                                  minSide: minSide) { (image, quality) throws(ImageError) in
            try ImageCodecs.encode(image, format == .jpeg ? .jpeg(quality: quality) : .webp(quality: quality))
        }
        let result = try search.run(pixels)
        return (result.bytes, result.width, result.height, result.quality, search.steps)
    }

    /// The extra sizes, largest first, each resized from `pixels` (the prepared photo before any
    /// shrinking for the budget): the same crop as the photo, from one decode, its longest side
    /// at most `longestSide` (the prepared photo's).
    private static func extras(of pixels: PixelBuffer, settings: UploadSettings, longestSide: Int) throws -> [PreparedExtra] {
        try settings.extraSides.sorted(by: >).map { side in
            let (width, height) = shrunk(pixels.width, pixels.height, toLongestSide: min(side, longestSide))
            let resized = (width, height) == (pixels.width, pixels.height) ? pixels : Resampler.resize(pixels, width: width, height: height)
            let result = try encodeWithinBudget(resized, settings: settings, minSide: min(settings.minSide, side))
            return PreparedExtra(side: side, bytes: result.bytes, format: settings.format.imageFormat, width: result.width,
                                 height: result.height, quality: result.quality, steps: result.steps)
        }
    }

    /// `width` x `height` scaled so the longer side is at most `longestSide`, never enlarged.
    private static func shrunk(_ width: Int, _ height: Int, toLongestSide longestSide: Int) -> (width: Int, height: Int) {
        let scale = min(1, Double(longestSide) / Double(max(width, height)))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// A handed-on image is still decoded once, so a damaged file is refused rather than passed
    /// along: at 1/8 scale (every coefficient is still read) when nothing else is made of it, or,
    /// with extra sizes, at the scale the largest of them needs, and they are made of it.
    private static func checkDecodesOrAddExtras(_ bytes: [UInt8], info: ImageInfo, to prepared: inout PreparedImage,
                                                settings: UploadSettings) throws {
        guard let largest = settings.extraSides.max() else { return try checkDecodes(bytes, settings: settings) }
        var extraRules = settings
        extraRules.maxSide = largest
        extraRules.shape = settings.shape.map { shape in
            var smaller = shape
            (smaller.width, smaller.height) = shrunk(shape.width, shape.height, toLongestSide: largest)
            return smaller
        }
        var ignored = prepared
        let pixels = try renderedPixels(bytes, renderRequest(for: info, settings: extraRules), into: &ignored, settings: settings)
        prepared.extras = try extras(of: pixels, settings: settings, longestSide: max(prepared.width, prepared.height))
    }

    /// Right format, within the budget and the side cap (or exactly the shape), upright, square when asked, one frame.
    static func meetsEveryRuleButMetadata(_ info: ImageInfo, byteCount: Int, settings: UploadSettings) -> Bool {
        info.format == settings.format.imageFormat && !info.isAnimated && info.orientation == .up
            && byteCount <= settings.budgetBytes
            && (settings.shape.map { $0.isMet(byWidth: info.width, height: info.height) }
                ?? (max(info.width, info.height) <= settings.maxSide && (!settings.square || info.width == info.height)))
    }

    private static func checkDecodes(_ bytes: [UInt8], settings: UploadSettings) throws {
        _ = try ImageCodecs.decode(bytes, limits: settings.limits, scale: DecodeScaleHint(minimumScale: 0))
    }

    /// The thumbnail that is the upright, capped image: a centred square (`cover`) or the whole
    /// picture (`contain`), never enlarged; or exactly the shape's box when one is asked for.
    public static func renderRequest(for info: ImageInfo, settings: UploadSettings) -> ThumbnailRequest {
        if let shape = settings.shape {
            return ThumbnailRequest(width: shape.width, height: shape.height, fit: shape.fit, gravity: settings.gravity,
                                    background: shape.background, limits: settings.limits)
        }
        let upright = info.orientation.uprightSize(width: info.width, height: info.height)
        let size = settings.square
            ? min(settings.maxSide, upright.width, upright.height)
            : min(settings.maxSide, max(upright.width, upright.height))
        return ThumbnailRequest(size: size, fit: settings.square ? .cover : .contain, gravity: settings.gravity, limits: settings.limits)
    }
}
