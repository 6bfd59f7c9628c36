import ArgumentParser
import ConsoleText
import Foundation
import HeapTuning
import ImageCore
import ThumbPipeline
import ThumbVariant
import ThumbdConfig
import Thumbnailer

struct ThumbnailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make thumbnails of image files.",
        discussion: HelpText.reflowed("""
            The format of each input is read from its first bytes, never from its name. Photos are decoded
            at the smallest size that still leaves the Lanczos-3 filter room to work, turned upright by
            their EXIF orientation, cropped and resized in one pass, and written without metadata.

            Examples:
              thumbd thumbnail photo.jpg -o thumb.jpg --size 200
              thumbd thumbnail shots/*.jpg --out-dir thumbs --size 320 \\
                  --format webp --quality 80
              thumbd thumbnail logo.png -o logo-small.png --fit contain --size 128
              thumbd thumbnail photo.jpg -o card.jpg --size 300x400
              thumbd thumbnail shots/*.jpg --out-dir sizes \\
                  --size 160 --size 320 --size 640 --size 1280
              thumbd thumbnail product.jpg -o cell.jpg --size 600 \\
                  --fit pad --background ffffff
              thumbd thumbnail photo.jpg -o banner.webp --size 320x180 \\
                  --dpr 2 --max-bytes 30000
              thumbd thumbnail product.jpg -o thumb.jpg --gravity center
              thumbd thumbnail product.jpg -o thumb.jpg --focus 0.7,0.4 --trim
              thumbd thumbnail shots/*.jpg --out-dir grid \\
                  --preset grid --config thumbd.yaml
              thumbd thumbnail photo.jpg -o thumb.jpg --placeholder
                {"averageColor":"#8a6f52","color":"srgb","height":1200,
                 "thumbhash":"…","url":"photo.jpg","width":1600}

            The variant's options are the API's query parameters (docs/variant.md): --size N or WxH,
            --fit cover|contain|pad, --background for pad's bands, --dpr, --max-bytes, --quality.

            Several sizes: --size may be given several times. Each photo is then decoded once, at the
            scale the largest size needs, and every size is made from those pixels (but a smart crop
            of a smaller size, whose choice depends on the decoded pixels, from its own decode); each
            file is named with its size as written (sizes/shot-160.jpg, sizes/shot-300x400.jpg;
            -o card.jpg gives card-160.jpg, ...).

            Gravity: a cover crop keeps the window of the box's shape that holds the most of what stands out in
            the photo (--gravity smart, the default: a saliency map of contrast, fine detail and
            colour against the background at the frame's edges, on a 100 px copy the
            thumbnailer already makes), the middle of the photo (--gravity center), or the
            window centred on a point as far as the frame allows (--focus X,Y: fractions of the
            upright photo's width and height). --trim first takes off a uniform border, so a
            product on a white sweep fills the box; an image that is all border is kept whole.

            Colours: a photo with an ICC profile (Display P3, Adobe RGB, a CMYK print profile) or
            PNG gamma is converted to sRGB; thumbnails are sRGB and carry no profile.

            A batch uses every core. A file that fails is reported on stderr as
              error: FILE: CODE: reason
            and the rest of the batch is still made; the exit status is then 1.
            """)
    )

    @Argument(help: "Image files (JPEG, PNG, WebP, AVIF, HEIC, GIF, TIFF, BMP or JPEG XL).")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output file (only with a single input), written as named. Its extension picks the format unless --format or a preset does.")
    var output: String?

    @Option(name: .customLong("out-dir"), help: "Folder for the thumbnails of a batch, named after each input.")
    var outDir: String?

    @OptionGroup(title: "The variant (as the API's query parameters)")
    var variantOptions: VariantOptions

    @Option(help: ArgumentHelp("Output format: auto, jpeg, png, webp, avif or jxl. Default: from -o's extension, else auto: JPEG for opaque thumbnails, PNG for transparent ones, as the daemon answers a client whose Accept is */*; --out-dir names each file by its format.", valueName: "FORMAT"))
    var format: String?

    @Option(help: ArgumentHelp("A preset from the configuration (presets: in the YAML file): its size, fit, gravity or focus, trim, format and quality, instead of those options.", valueName: "NAME"))
    var preset: String?

    @Option(help: ArgumentHelp("YAML configuration file, for --preset (default: THUMBD_CONFIG).", valueName: "FILE"))
    var config: String?

    @Option(name: .customLong("avif-speed"), help: "AVIF encoder speed, 0 (slowest, smallest) to 10.")
    var avifSpeed: Int = EncodeSettings.defaultAVIFSpeed

    @Flag(help: "Write progressive JPEG.")
    var progressive = false

    @Flag(help: "Write lossless WebP (with --format webp).")
    var lossless = false

    @Option(name: .customLong("max-megapixels"), help: "Refuse images larger than this (width x height, in megapixels).")
    var maxMegapixels: Double = Double(DecodeLimits.defaultMaxPixels) / 1_000_000

    @Option(name: .customLong("jobs"), help: "Images made at once (default: one per core).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(name: .shortAndLong, help: "Print nothing for images that succeed.")
    var quiet = false

    @Flag(help: """
        For each image, print its placeholder as one JSON line instead of the summary: the photo's \
        displayed width and height, its ThumbHash (base64), average colour and colour handling.
        """)
    var placeholder = false

    func validate() throws {
        let sizes = variantOptions.box.size.map { $0.lowercased() }
        if let twice = Dictionary(grouping: sizes, by: { $0 }).first(where: { $0.value.count > 1 }) {
            throw ValidationError("--size \(twice.key) is given twice: each size is made once.")
        }
        if let format, format.lowercased() != "auto", ImageFormat(argument: format) == nil {
            throw ValidationError("--format must be auto, jpeg, png, webp, avif or jxl, not \"\(format)\"")
        }
        guard (0...10).contains(avifSpeed) else { throw ValidationError("--avif-speed must be between 0 and 10.") }
        guard maxMegapixels > 0 else { throw ValidationError("--max-megapixels must be positive.") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
        switch (output, outDir) {
        case (nil, nil): throw ValidationError("Say where thumbnails go: -o FILE for one input, or --out-dir DIR.")
        case (.some, .some): throw ValidationError("Use either -o or --out-dir, not both.")
        case (.some, nil) where inputs.count > 1:
            throw ValidationError("-o takes a single input; for \(inputs.count) inputs use --out-dir DIR.")
        default: break
        }
        if format == nil, let named = output.flatMap(Self.formatNamed(byExtensionOf:)), !named.isWritable {
            throw ValidationError("thumbd reads \(named.rawValue.uppercased()) but does not write it: name the output .jpg, .png, .webp, .avif or .jxl, or give --format.")
        }
        if lossless && preset == nil && (format.flatMap(ImageFormat.init(argument:)) ?? output.flatMap(Self.formatNamed(byExtensionOf:))) != .webp {
            throw ValidationError("--lossless applies to WebP output only; add --format webp.")
        }
        if outDir != nil {
            // Each file's extension is its thumbnail's format, known once it is made: names are
            // compared without it.
            let names = inputs.map(Self.baseName)
            if let clash = Dictionary(grouping: names, by: { $0 }).first(where: { $0.value.count > 1 }) {
                throw ValidationError("Two inputs would both be written as \(clash.key).* in --out-dir; rename one or run them separately.")
            }
        }
    }

    func run() async throws {
        // Buffers reused from photo to photo, as the daemon reuses them from miss to miss.
        AllocatorTuning.apply(busyThreads: min(jobs, inputs.count))
        var limits = DecodeLimits()
        limits.maxPixels = Int(maxMegapixels * 1_000_000)
        if let outDir {
            try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        }
        let (outputs, trimThreshold) = try await chosenOutputs()
        if let variant = outputs.first?.variant, variant.format == .jpeg, variant.fit == .pad, variant.background == .transparent {
            throw ValidationError("--background transparent needs a format with alpha: write .png, .webp or .avif, or give --format")
        }
        let maker = ThumbnailMaker(limits: limits, trimThreshold: trimThreshold,
                                   encoder: EncoderOptions(avifSpeed: avifSpeed, progressiveJPEG: progressive, losslessWebP: lossless))
        let jobsList = inputs.map { input in
            ThumbnailJob(input: input, destination: output.map { .file($0) } ?? .folder(outDir!, baseName: Self.baseName(input)),
                         outputs: outputs, maker: maker, placeholder: placeholder)
        }
        let results = await ThumbnailJob.runAll(jobsList, concurrency: jobs)
        var failures = 0
        for result in results {
            switch result {
            case .success(let report):
                if !quiet { print(report) }
            case .failure(let failure):
                failures += 1
                FileHandle.standardError.write(Data("error: \(failure)\n".utf8))
            }
        }
        if failures > 0 {
            if results.count > 1 {
                FileHandle.standardError.write(Data("\(failures) of \(results.count) \(outputs.count > 1 ? "thumbnails" : "images") failed.\n".utf8))
            }
            throw ExitCode.failure
        }
    }

    /// What to make of each photo: the options' variant for each size (named by it when there are
    /// several), or the preset's, read by the parser the daemon reads queries with. The format:
    /// --format, else the preset's, else the one -o's extension names, else `auto`, decided as the
    /// daemon decides it for a client that takes any image. The configuration is read only when a
    /// preset or --config asks for it; its defaults are the embedded ones otherwise, with the
    /// command line's own size limit.
    private func chosenOutputs() async throws -> ([ThumbnailJob.Output], trimThreshold: Int) {
        var defaults = VariantDefaults()
        defaults.maxSize = ThumbnailRequest.sizeRange.upperBound
        var trimThreshold = ThumbnailRequest.defaultTrimThreshold
        if preset != nil || config != nil {
            let loaded: ThumbdConfiguration
            loaded = try await loadSettings(file: config)
            defaults = loaded.daemon.server.variants
            defaults.maxSize = max(defaults.maxSize, ThumbnailRequest.sizeRange.upperBound)
            defaults.onlyPresets = false
            trimThreshold = loaded.daemon.pipeline.trimThreshold
        }
        let named = format.map { ImageFormat(argument: $0)?.rawValue ?? $0.lowercased() }
        let sized = try variantOptions.variants(format: named, preset: preset, defaults: defaults)
        let outputs = sized.map { size, variant in
            var variant = variant
            if variant.format == .auto, format == nil, let fromName = output.flatMap(Self.formatNamed(byExtensionOf:)),
               let chosen = Variant.Format(rawValue: fromName.rawValue) {
                variant.format = chosen
            }
            return ThumbnailJob.Output(variant: variant, sizeLabel: sized.count > 1 ? size?.lowercased() : nil)
        }
        return (outputs, trimThreshold)
    }

    /// The format an output name's extension names (`.jpg` and `.jpeg` alike); nil for none or another.
    static func formatNamed(byExtensionOf path: String) -> ImageFormat? {
        let ext = (path as NSString).pathExtension.lowercased()
        return ImageFormat.allCases.first { $0.fileExtension == ext || $0.rawValue == ext }
    }

    static func baseName(_ input: String) -> String {
        ((input as NSString).lastPathComponent as NSString).deletingPathExtension
    }
}

extension Fit: ExpressibleByArgument {}
extension Gravity: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public static var allValueStrings: [String] { allCases.map(\.description) }
}
extension ImageFormat: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument.lowercased() {
        case "jpeg", "jpg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        case "jxl": self = .jxl
        default: return nil
        }
    }
}
