import ArgumentParser
import ByteUnits
import ConsoleText
import Foundation
import HeapTuning
import ThumbPipeline
import ThumbVariant
import Thumbnailer
import ThumbdConfig
import UploadForms
import UploadPreparation

struct PrepareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prepare",
        abstract: "Make a seller's photos ready for upload: 1 to 5 images, each within a byte budget.",
        discussion: HelpText.reflowed("""
            Each photo is turned upright by its EXIF orientation, stripped of all metadata (EXIF with its
            GPS position, XMP, comments, ICC), cropped to a square with --square (from where --gravity says: smart or center; or centred on --focus X,Y), capped to
            --max-side on its longest side, and encoded to land as close under the budget as it can: the
            quality is searched from 92 down to 50, and only if that floor still overflows do the
            dimensions shrink. No image is ever written over the budget; when even a small one cannot
            fit, the batch fails with budget_unreachable. A photo that already meets every rule is
            copied unchanged (its JPEG metadata alone removed without re-encoding); --reencode turns
            that off.

            The batch is all or nothing: the image count is checked before any file is read, every
            header before any decoding, and the files are written only when every image is ready. A
            failure names the image (position and file) and its stable code, and writes nothing.

            Writes DIR/N-NAME.jpg (or .webp) and DIR/manifest.json (for each image: source, output,
            size, bytes, quality, every encoding tried). --extra-size S (up to 4) also writes
            DIR/N-NAME-S.jpg, the same picture at S pixels on its longest side, resized from the
            prepared pixels (one decode a photo) and within the same budget. With --multipart FILE
            --params params.json it also writes the marketplace's registration body (a `params` part
            with the JSON, one `images` part per photo; the extra sizes are not in it) and prints its
            Content-Type header line with the boundary.

            Examples:
              thumbd prepare IMG_01.jpg IMG_02.jpg --out ready
              thumbd prepare shots/*.jpg --out ready --square --budget 200KiB \\
                  --format webp
              thumbd prepare shots/*.jpg --out ready --size 1200x1200 \\
                  --fit pad --background ffffff
              thumbd prepare shots/*.jpg --out ready --square --extra-size 320 \\
                  --extra-size 160
              thumbd prepare *.jpg --out ready --multipart body.bin \\
                  --params product.json --quiet
                (prints only `Content-Type: multipart/form-data; boundary=…`,
                 for curl -H)

            Defaults come from the `uploads` section of the configuration (config/thumbd.yaml,
            THUMBD_UPLOADS_*); flags override them. Exit status: 0 done, 1 refused or failed (nothing
            written), 2 usage error.
            """)
    )

    @Argument(help: "The original photos (JPEG, PNG, WebP, AVIF, HEIC, GIF, TIFF, BMP or JPEG XL), in upload order.")
    var inputs: [String] = []

    @Option(help: "Folder for the prepared images and manifest.json (created if missing).")
    var out: String

    @Flag(help: "Crop each photo to a square.")
    var square = false

    @Option(help: "Where --square crops from: smart (what stands out) or center. Default: thumbnail.gravity (smart).")
    var gravity: Gravity?

    @Option(help: ArgumentHelp("Centre the --square crop on this point of the upright photo (fractions of its width and height: 0.5,0.3), instead of --gravity.", valueName: "X,Y"))
    var focus: FocusPoint?

    @OptionGroup(title: "An exact box for every photo, instead of --max-side (as for thumbnails)")
    var box: BoxOptions

    @Option(help: "Largest size of each prepared image: bytes, or with a unit (300KiB, 0.5MiB, 300KB). Default 300KiB.")
    var budget: String?

    @Option(name: .customLong("max-side"), help: "Longest side in pixels; smaller photos are never enlarged. Default 1200.")
    var maxSide: Int?

    @Option(name: .customLong("extra-size"), help: ArgumentHelp("""
        Also write each photo with its longest side at N pixels (up to 4 times): N-NAME-N.jpg, the same picture \
        resized from the prepared one's pixels (no second decode), within the same budget.
        """, valueName: "N"))
    var extraSizes: [Int] = []

    @Option(help: "Output format: jpeg or webp. Default jpeg.")
    var format: UploadSettings.OutputFormat?

    @Option(name: .customLong("max-images"), help: "Most photos in one batch. Default 5.")
    var maxImages: Int?

    @Option(name: .customLong("quality-ceiling"), help: "Highest quality tried (the quality of a photo that fits at once). Default 92.")
    var qualityCeiling: Int?

    @Option(name: .customLong("quality-floor"), help: "Lowest quality tried before the dimensions shrink. Default 50.")
    var qualityFloor: Int?

    @Flag(help: "Re-encode photos that already meet every rule instead of copying them.")
    var reencode = false

    @Option(help: "Also write the registration body (multipart/form-data) to this file; needs --params.")
    var multipart: String?

    @Option(help: "The product's JSON for the body's `params` part; needs --multipart.")
    var params: String?

    @Flag(help: "Print the manifest as JSON instead of the table.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but the Content-Type line (with --multipart).")
    var quiet = false

    @Option(help: "Configuration file (default: THUMBD_CONFIG, else the embedded defaults).")
    var config: String?

    func validate() throws {
        try box.requireOneSize("prepare")
        if (multipart == nil) != (params == nil) {
            throw ValidationError("--multipart FILE and --params FILE go together: the body's first part is the product JSON.")
        }
        if let budget, ByteSize.parse(budget).map({ $0 > 0 }) != true {
            throw ValidationError("--budget must be a positive byte count like 300KiB, 307200 or 0.5MiB, not \"\(budget)\".")
        }
    }

    func run() async throws {
        AllocatorTuning.apply(busyThreads: min(inputs.count, ProcessInfo.processInfo.activeProcessorCount))
        let rules = try await loadRules()
        let start = ContinuousClock.now
        do {
            // Rules first: the count before any file is read, params before any decoding.
            try UploadPreparer.checkCount(inputs.count, settings: rules)
            let productParams = try params.map { try readParams($0) }
            let sources = try inputs.enumerated().map { try readOriginal($0.element, position: $0.offset + 1, rules: rules) }
            let pool = CPUPool(niceness: 0)
            defer { pool.shutdown() }
            let priority = PriorityCell(.interactive)
            let images = try await UploadPreparer.prepare(sources, settings: rules) { work in
                try await pool.run(priority: priority, work)
            }
            let elapsed = (ContinuousClock.now - start).secondsValue
            let folder = URL(fileURLWithPath: out)
            let manifest = UploadManifest(settings: rules, images: images, elapsedSeconds: elapsed)
            var files = images.flatMap { image in
                [BatchWriter.File(url: folder.appendingPathComponent(image.fileName), bytes: image.bytes)]
                    + image.extras.map { BatchWriter.File(url: folder.appendingPathComponent(image.fileName(of: $0)), bytes: $0.bytes) }
            }
            files.append(BatchWriter.File(url: folder.appendingPathComponent("manifest.json"), bytes: try manifest.json() + [0x0A]))
            var body: MultipartBody?
            if let multipart, let productParams {
                let made = try RegistrationForm.body(params: productParams, images: images)
                files.append(BatchWriter.File(url: URL(fileURLWithPath: multipart), bytes: made.bytes))
                body = made
            }
            try BatchWriter.commit(files)
            report(manifest, images: images, body: body)
        } catch let error as UploadError {
            FileHandle.standardError.write(Data("error: \(error)\nnothing was written\n".utf8))
            throw ExitCode.failure
        }
    }

    private func loadRules() async throws -> UploadSettings {
        var rules = try await loadSettings(file: config).daemon.uploads
        if square { rules.square = true }
        if let gravity = try chosenGravity(gravity, focus: focus) { rules.gravity = gravity }
        var boxFields = box.fields
        boxFields.append("gravity", text: gravity?.description)
        boxFields.append("focus", text: focus?.description)
        do {
            if let box = try VariantParser.uploadBox(boxFields, maxSide: UploadSettings.sideRange.upperBound) {
                rules.shape = UploadShape(width: box.width, height: box.height, fit: box.fit, background: box.background ?? .white)
            }
        } catch { throw ValidationError(VariantOptions.usage(error)) }
        if let budget { rules.budgetBytes = ByteSize.parse(budget) ?? rules.budgetBytes }
        if let maxSide {
            rules.maxSide = maxSide
            rules.minSide = min(rules.minSide, maxSide)
        }
        if let format { rules.format = format }
        if let maxImages { rules.maxImages = maxImages }
        if let qualityCeiling { rules.qualityCeiling = qualityCeiling }
        if let qualityFloor { rules.qualityFloor = qualityFloor }
        if reencode { rules.passThrough = false }
        if !extraSizes.isEmpty { rules.extraSides = extraSizes }
        do { try rules.validate() } catch { throw ValidationError(error.message) }
        return rules
    }

    private func readParams(_ path: String) throws(UploadError) -> ProductParams {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UploadError(.unreadableFile, "cannot read the params file \(path)")
        }
        do { return try ProductParams(json: [UInt8](data)) } catch {
            throw UploadError(error.code, "\(path): \(error.message)")
        }
    }

    /// The size is checked from the file system before the file is read into memory.
    private func readOriginal(_ path: String, position: Int, rules: UploadSettings) throws(UploadError) -> SourceImage {
        let reference = ImageReference(position: position, name: path)
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes, attributes[.type] as? FileAttributeType == .typeRegular else {
            throw UploadError(.unreadableFile, FileManager.default.fileExists(atPath: path) ? "not a regular file" : "no such file",
                              image: reference)
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= rules.maxImageBytes else {
            throw UploadError(.imageTooLarge, "the file is \(size) bytes, over the limit of \(rules.maxImageBytes)", image: reference)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UploadError(.unreadableFile, "cannot read the file (permissions?)", image: reference)
        }
        return SourceImage(name: path, bytes: [UInt8](data))
    }

    private func report(_ manifest: UploadManifest, images: [PreparedImage], body: MultipartBody?) {
        let contentType = body.map { "Content-Type: \($0.contentType)" }
        if quiet {
            if let contentType { print(contentType) }
            return
        }
        if json {
            print(String(decoding: (try? manifest.json()) ?? [], as: UTF8.self))
            return
        }
        var rows: [[String]] = []
        for image in manifest.images {
            let removed = image.removedMetadata.isEmpty ? "" : "; removed " + image.removedMetadata.joined(separator: ", ")
            rows.append([String(image.position), image.source, image.output, "\(image.width)x\(image.height)", ByteSize.format(image.bytes),
                         image.quality.map { "q\($0)" } ?? "-", String(image.steps.count), image.action.rawValue + removed])
            for extra in image.extras ?? [] {
                rows.append(["", "", extra.output, "\(extra.width)x\(extra.height)", ByteSize.format(extra.bytes), "q\(extra.quality)",
                             String(extra.steps.count), "extra size \(extra.side)"])
            }
        }
        print(TextTable.render(["#", "source", "output", "size", "bytes", "quality", "encodes", "what was done"], rows, left: [1, 2, 3, 5, 7]))
        let total = manifest.images.reduce(0) { $0 + $1.bytes }
        print("\(manifest.images.count) images, \(ByteSize.format(total)) in all, each within \(ByteSize.format(manifest.rules.budgetBytes)), "
              + "in \(String(format: "%.2f", manifest.elapsedSeconds ?? 0)) s → \(out)/ (manifest.json)")
        if let body, let multipart {
            print("registration body: \(multipart) (\(ByteSize.format(body.bytes.count)))")
        }
        if let contentType { print(contentType) }
    }
}

extension UploadSettings.OutputFormat: ExpressibleByArgument {}
