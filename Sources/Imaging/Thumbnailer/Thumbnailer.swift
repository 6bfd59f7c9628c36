import ColorManagement
import ImageCodecs
import ImageCore
import ImageOps
import ImagePlaceholder

/// Encoded image bytes in, thumbnail bytes out: decode at the size needed, stand upright,
/// take off a uniform border when asked, choose the crop (centred, by saliency for `Gravity.smart`,
/// on a point for `Gravity.focus`), crop and resize in one Lanczos pass. Encoding is
/// `ThumbnailMaker`'s (ThumbVariant), where the format rule lives. Synchronous and CPU-bound: callers run it off any
/// thread that answers requests.
public enum Thumbnailer {
    /// Decodes, orients, crops and resizes: the thumbnail's pixels before encoding.
    public static func render(from data: [UInt8], _ request: ThumbnailRequest, placeholder: Bool = true) throws(ImageError) -> RenderedThumbnail {
        try render(decode(data, for: [request], placeholder: placeholder), request)
    }

    /// Decodes `data` once for every one of `requests` (the sizes a shop makes of one photo): at the
    /// scale the most demanding of them needs, so each smaller one is resized from more pixels than
    /// it would have been decoded at alone, never fewer. The colour conversion and the placeholder
    /// are made here once too; `render(_:_:)` then makes each thumbnail the photo `serves`.
    /// Without `placeholder` (a command line that only writes thumbnails) no ThumbHash is made. With
    /// one, a JPEG of about 800 px or more (100 blocks) makes it from its block means, the DC
    /// coefficients every block has; any other photo from a small copy of its decoded pixels. Centre
    /// and focus crops of a JPEG decode only their window either way, unless that copy needs the
    /// whole photo.
    public static func decode(_ data: [UInt8], for requests: [ThumbnailRequest], placeholder: Bool = true) throws(ImageError) -> DecodedPhoto {
        try decode(data, for: requests, placeholder: placeholder, windows: true)
    }

    /// `windows` false decodes every photo whole: the reference a window's thumbnails are checked against.
    static func decode(_ data: [UInt8], for requests: [ThumbnailRequest], placeholder: Bool, windows: Bool) throws(ImageError) -> DecodedPhoto {
        guard let first = requests.first else { throw ImageError(.invalidRequest, "no thumbnail was asked for") }
        for request in requests { try checkSize(request) }
        let clock = ContinuousClock()
        var timings = StageTimings()
        var start = clock.now

        let info = try ImageCodecs.readInfo(data, limits: first.limits)
        let upright = info.orientation.uprightSize(width: info.width, height: info.height)
        let scale = requests.map { request in
            ThumbnailGeometry(uprightWidth: upright.width, uprightHeight: upright.height,
                              width: request.width, height: request.height, fit: request.fit)
                .minimumDecodeScale(headroom: request.decodeHeadroom)
        }.max { $0.minimumScale < $1.minimumScale }!
        let smart = requests.contains { $0.fit == .cover && $0.gravity == .smart }
        // The placeholder shows the whole photo. A large enough JPEG's comes from its block means,
        // caught for every block even outside a window, so its crops known before decoding are
        // still all that is decoded; any other photo's from its decoded pixels, all of them.
        let placeholderFromMeans = placeholder && blockMeansSufficeForPlaceholder(info)
        let window = !windows || (placeholder && !placeholderFromMeans) ? nil : DecodeWindowPlan.union(for: requests, info: info, scale: scale)
        var decoded = try ImageCodecs.decodeAsStored(data, limits: first.limits, scale: scale, blockMeans: smart || placeholderFromMeans,
                                                    window: window)
        timings.decode = clock.now - start
        start = clock.now
        // CMYK is converted here; an RGB profile waits for the smaller resized pixels.
        let color = ColorManagement.prepareConversion(&decoded)
        timings.color = clock.now - start

        start = clock.now
        // Block means turned upright serve the placeholder, or a smart crop of a photo large enough.
        let uprightMeans = decoded.blockMeans.flatMap { means in
            placeholderFromMeans || max(means.width, means.height) >= SmartCrop.BlockAnalysis.minimumSide
                ? convertedUpright(means, color: color, orientation: info.orientation) : nil
        }
        let blockAnalysis = decoded.blockMeans.flatMap { stored in uprightMeans.flatMap { SmartCrop.BlockAnalysis(stored, upright: $0) } }
        // A smart crop is never windowed: these are all the pixels.
        let uprightSmall = smart && blockAnalysis == nil
            ? smallUprightCopy(of: decoded.pixels, color: color, orientation: info.orientation) : nil
        var thumbHash: [UInt8]?
        if placeholder {
            thumbHash = placeholderFromMeans ? uprightMeans.flatMap(ThumbHash.encode(fitting:)) : nil
            if thumbHash == nil {
                let small: PixelBuffer
                if let uprightSmall { small = uprightSmall } else {
                    small = try wholeSmallCopy(data, decoded, color: color, scale: scale, limits: first.limits)
                }
                thumbHash = ThumbHash.encode(small)
            }
        }
        let photo = PhotoFacts(width: upright.width, height: upright.height, thumbHash: thumbHash)
        timings.placeholder = clock.now - start
        return DecodedPhoto(data: data, info: info, decoded: decoded, color: color, uprightSmall: uprightSmall,
                            blockAnalysis: blockAnalysis, limits: first.limits, scale: scale, photo: photo, timings: timings)
    }

    /// Whether a JPEG's block means (one pixel per 8x8 block) are as many as ThumbHash reads: 100
    /// blocks on the longer side, from 793 px. A smaller photo's placeholder is made from its decoded pixels.
    private static func blockMeansSufficeForPlaceholder(_ info: ImageInfo) -> Bool {
        info.format == .jpeg && (max(info.width, info.height) + 7) / 8 >= ThumbHash.maxSide
    }

    /// The placeholder's small copy when it must come from pixels: these, or, when only a window was
    /// decoded (its block means could not be caught), the whole photo decoded again.
    private static func wholeSmallCopy(_ data: [UInt8], _ decoded: DecodedImage, color: ColorConversion, scale: DecodeScaleHint,
                                       limits: DecodeLimits) throws(ImageError) -> PixelBuffer {
        guard decoded.window != nil else { return smallUprightCopy(of: decoded.pixels, color: color, orientation: decoded.info.orientation) }
        var whole = try ImageCodecs.decodeAsStored(data, limits: limits, scale: scale)
        let wholeColor = ColorManagement.prepareConversion(&whole)
        return smallUprightCopy(of: whole.pixels, color: wholeColor, orientation: whole.info.orientation)
    }

    /// From the whole decoded photo (already reduced by the decoder), shrunk to ThumbHash's 100 px,
    /// then converted and turned upright like the thumbnail. A smart crop looks at the same copy.
    /// Both read only its coarse shapes (ThumbHash keeps 7 cosines an axis), so exact k x k block
    /// means do most of the reduction and Lanczos only the last factor under 2: a third of the cost
    /// of the thumbnail's own filter here.
    private static func smallUprightCopy(of pixels: PixelBuffer, color: ColorConversion, orientation: Orientation) -> PixelBuffer {
        let fitted = ThumbHash.fittedSize(width: pixels.width, height: pixels.height)
        let small = fitted == (pixels.width, pixels.height)
            ? pixels
            : Resampler.resize(pixels, width: fitted.width, height: fitted.height, prereduction: .box(lanczosFactor: 1))
        return convertedUpright(small, color: color, orientation: orientation)
    }

    /// `pixels` colour-converted and turned upright, as the thumbnail is.
    private static func convertedUpright(_ pixels: PixelBuffer, color: ColorConversion, orientation: Orientation) -> PixelBuffer {
        var converted = pixels
        color.apply(to: &converted)
        return converted.oriented(orientation)
    }

    /// One thumbnail of a decoded photo: trim, crop, resize, colour and pad.
    public static func render(_ decodedPhoto: DecodedPhoto, _ request: ThumbnailRequest) throws(ImageError) -> RenderedThumbnail {
        try checkSize(request)
        let clock = ContinuousClock()
        var timings = decodedPhoto.timings
        let info = decodedPhoto.info
        let photo = decodedPhoto.photo
        let upright = (width: photo.width, height: photo.height)
        var decoded = decodedPhoto.decoded
        var color = decodedPhoto.color
        // A window holds the crops it was decoded for; any other would be read from pixels not there.
        guard decodedPhoto.windowHolds(request) else {
            throw ImageError(.invalidRequest, "this photo was decoded for other crops (a window of it): decode it for this one")
        }
        var geometry = ThumbnailGeometry(uprightWidth: upright.width, uprightHeight: upright.height,
                                         width: request.width, height: request.height, fit: request.fit)
        var start = clock.now
        // The part of the upright photo the thumbnail is made of: all of it, or what trimming kept.
        var frame = SourceRegion(x: 0, y: 0, width: Double(upright.width), height: Double(upright.height))
        if request.trim, let kept = Trim.frame(of: decoded, info: info, threshold: request.trimThreshold) {
            frame = kept
            geometry = ThumbnailGeometry(frame: frame, width: request.width, height: request.height, fit: request.fit)
            // The decoder's scale was chosen for the whole photo; a small kept part may need more.
            let needed = geometry.minimumDecodeScale(headroom: request.decodeHeadroom)
            if decoded.scaleX < needed.minimumScale * 0.999 || decoded.scaleY < needed.minimumScale * 0.999 {
                decoded = try ImageCodecs.decodeAsStored(decodedPhoto.data, limits: request.limits, scale: needed)
                color = ColorManagement.prepareConversion(&decoded)
            }
        }
        var region = geometry.region
        if request.fit == .cover {
            switch request.gravity {
            case .center: break
            case .smart:
                // A large JPEG's window is chosen on its block means, the same whatever the decode's
                // scale; other photos' on the decoded pixels themselves.
                let analysis = decodedPhoto.blockAnalysis
                region = SmartCrop.moved(region, within: frame, uprightWidth: upright.width, uprightHeight: upright.height,
                                         small: analysis?.upright ?? decodedPhoto.uprightSmall
                                             ?? smallUprightCopy(of: decoded.pixels, color: color, orientation: info.orientation),
                                         decoded: analysis?.stored ?? decoded.pixels, orientation: info.orientation)
            case .focus(let point):
                region = FocusCrop.moved(region, to: point, within: frame, uprightWidth: upright.width, uprightHeight: upright.height)
            }
        }
        timings.crop = clock.now - start

        start = clock.now
        // The crop is mapped into the stored image at full size, then by the decoder's exact scale;
        // only the small result is turned upright.
        let (stored, storedOutWidth, storedOutHeight) = geometry.stored(region, info: info)
        let decodedRegion = SourceRegion(x: stored.x * decoded.scaleX - Double(decoded.originX),
                                         y: stored.y * decoded.scaleY - Double(decoded.originY),
                                         width: stored.width * decoded.scaleX, height: stored.height * decoded.scaleY)
        var resized = Resampler.resize(decoded.pixels, region: decodedRegion, width: storedOutWidth, height: storedOutHeight)
            .oriented(info.orientation)
        timings.resize = clock.now - start

        start = clock.now
        color.apply(to: &resized)
        timings.color += clock.now - start
        if request.fit == .pad {
            start = clock.now
            resized = PadCanvas.padded(resized, width: request.width, height: request.height, background: request.background)
            timings.resize += clock.now - start
        }
        return RenderedThumbnail(pixels: resized, source: decoded.info, decodedWidth: decoded.pixels.width,
                                 decodedHeight: decoded.pixels.height, color: color.outcome, photo: photo, crop: region, timings: timings)
    }

    private static func checkSize(_ request: ThumbnailRequest) throws(ImageError) {
        guard ThumbnailRequest.sizeRange.contains(request.width), ThumbnailRequest.sizeRange.contains(request.height) else {
            throw ImageError(.invalidRequest, "width and height must be \(ThumbnailRequest.sizeRange.lowerBound)...\(ThumbnailRequest.sizeRange.upperBound), not \(request.width)x\(request.height)")
        }
    }
}

/// A photo decoded once, for as many thumbnails as are asked of it (`Thumbnailer.decode(_:for:)`):
/// its header, its pixels at the scale the largest needs, the colour conversion they still need,
/// the placeholder's small upright copy, and the bytes, kept for a trim that needs more pixels.
public struct DecodedPhoto: Sendable {
    let data: [UInt8]
    let info: ImageInfo
    let decoded: DecodedImage
    let color: ColorConversion
    /// The small upright copy a smart crop chooses on when the photo has no block analysis (its
    /// placeholder made from it too); nil otherwise.
    let uprightSmall: PixelBuffer?
    /// What a smart crop looks at when the photo is a JPEG large enough for its block means.
    let blockAnalysis: SmartCrop.BlockAnalysis?
    let limits: DecodeLimits
    /// The scale the decoder was asked for: the most demanding of the requests'.
    let scale: DecodeScaleHint
    public let photo: PhotoFacts
    /// The decode's, the colour preparation's and the placeholder's, shared by its thumbnails.
    let timings: StageTimings

    /// Whether `request`'s thumbnail made from these pixels is the one its own decode would give:
    /// they were decoded under the same limits, at a scale at least the one its size needs. A smart
    /// cover crop chosen on the decoded pixels only from the very pixels it would have had alone: it
    /// weighs their sharp detail, which depends on their scale, so from more pixels it may choose
    /// another window (SSIM 0.38 against its single-size thumbnail on a corpus photo). Those are the
    /// same pixels when its own decode would come out at this decode's scale: a JPEG's sizes that
    /// need the same M/8, every size of a format decoded at full size (AVIF, HEIC, JPEG XL...). A
    /// large JPEG's window is chosen on its block means, the same at every scale: any size it serves.
    public func serves(_ request: ThumbnailRequest) -> Bool {
        let geometry = ThumbnailGeometry(uprightWidth: photo.width, uprightHeight: photo.height,
                                         width: request.width, height: request.height, fit: request.fit)
        let needed = geometry.minimumDecodeScale(headroom: request.decodeHeadroom)
        guard request.limits == limits, windowHolds(request) else { return false }
        if request.fit == .cover, request.gravity == .smart, blockAnalysis == nil {
            // No small copy: decoded for no smart crop, perhaps without the block means its own
            // decode would choose on, or to be trimmed and decoded again before choosing.
            guard uprightSmall != nil else { return false }
            guard needed != scale else { return true }
            guard let own = ImageCodecs.decodeScale(of: info.format, for: needed),
                  let shared = ImageCodecs.decodeScale(of: info.format, for: scale) else { return false }
            return own == shared
        }
        return decoded.scaleX >= needed.minimumScale * 0.999 && decoded.scaleY >= needed.minimumScale * 0.999
    }

    /// Whether the decoded pixels hold all `request` reads: always for a whole decode; for a window,
    /// when the request's own window at this scale lies inside it.
    func windowHolds(_ request: ThumbnailRequest) -> Bool {
        guard let window = decoded.window else { return true }
        return DecodeWindowPlan.needed(by: request, info: info, decodeScale: decoded.scaleX).map(window.contains) ?? false
    }

    /// What became of the photo's colour information.
    public var colorOutcome: ColorOutcome { color.outcome }

    /// The decoded pixels' size: what the thumbnails are resized from.
    public var decodedWidth: Int { decoded.pixels.width }
    public var decodedHeight: Int { decoded.pixels.height }
}
