import ArgumentParser
import ChildProcess
import ConsoleText
import CropScenes
import Foundation
import Thumbnailer

/// `thumbd-bench crop`: how often each smart crop keeps the whole product, and what it costs.
struct BenchCropCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crop",
        abstract: "Measure smart crops (thumbd, vips attention, thumbor) on generated product scenes.",
        discussion: HelpText.reflowed("""
            SCENES: generated product photos (CropScenes.SceneGenerator) with the product
            off-centre and its box known: 4 frames (3:2, 16:9, 4:3, 2:3) x 3 backgrounds
            (studio sweep, blurred, sharp busy) x 2 products (plain shaded colour,
            patterned cut from the photos in TestImages) x --repetitions, 1200 px on
            the long side (--scene-side), written as JPEG q92. From 2,048 px thumbd's
            smart crop looks at a JPEG's block means instead of its decoded pixels. Busy and blurred backgrounds come
            from --corpus photos (textured clutter without them). Seeded: the same
            --seed makes the same scenes.

            SCORES, per method: whole kept (the product's box inside the crop, within
            1 % of the window's shorter side), overall and by background; mean kept share of
            the box. thumbd's windows are what Thumbnailer reports; the peers' are
            found by matching their thumbnail against the scene (CropLocator).

            SHAPE: every method crops to the same box, a --size square (200 px
            unless given) or --shape WxH (240x320 for 3:4, 320x180 for 16:9):
            thumbd through ThumbnailRequest(width:height:), vipsthumbnail with
            -s WxH, thumbor with that width and height; a peer's thumbnail of
            another size is named under the table. A window of a shape other
            than the square may be too small for some products (a 16:9 window
            on a portrait scene): then a last row gives the best any window of
            that shape can do.

            TIME per thumbnail (decode, crop, resize, JPEG q82 encode), and each
            smart crop's time over its own tool's centre crop:
            - thumbd: in-process, bytes already read, centre and smart taken in
              turn file by file, either first as often; median of --rounds.
            - vipsthumbnail -s WxH --smartcrop centre|attention: one process over
              every scene per round; wall clock over the file count, median.
            - thumbor (PyPI thumbor, opencv-python-headless: `make crop-deps` puts
              them in .build/thumbor-venv, used when present; --python names another
              interpreter): its Transformer with the PIL engine, smart=True with
              the feature detector, against smart=False; timed inside Python.
              Reported as not installed when it cannot be imported.
            COST ON PHOTOS: thumbd centre and smart, and vips centre and attention,
            over the --corpus photos themselves.
            """)
    )

    @Option(help: "Folder of photos for busy and blurred backgrounds and the cost on photos (default: ../shared/corpora/photos when present).")
    var corpus: String?

    @Option(help: "Scenes of each frame, background and product kind.")
    var repetitions: Int = 4

    @Option(help: "Seed of the scene generator.")
    var seed: UInt64 = 19

    @Option(help: "The scenes' long side in pixels (2048 or more: thumbd's smart crop reads the JPEG's block means).")
    var sceneSide: Int = 1200

    @Option(help: "Thumbnail width and height in pixels, a square (default: 200; or --shape).")
    var size: Int?

    @Option(help: ArgumentHelp("Crop every method to this box instead of a square: 240x320, 320x180.", valueName: "WxH"),
            transform: BenchShape.parse)
    var shape: BenchShape?

    @Option(help: "Timed rounds (the median is reported).")
    var rounds: Int = 3

    @Option(help: "Python interpreter with thumbor and OpenCV (default: the one `make crop-deps` puts in .build/thumbor-venv when it is there, else python3).")
    var python: String?

    @Option(help: "Keep the scenes and every tool's thumbnails in this folder.")
    var keep: String?

    @Flag(help: "Print every scene's kept share per method.")
    var verbose = false

    /// The box every method crops to.
    var box: BenchShape { shape ?? .square(size ?? 200) }

    func validate() throws {
        if size != nil, shape != nil { throw ValidationError("give --size or --shape, not both.") }
        if let size, !ThumbnailRequest.sizeRange.contains(size) {
            throw ValidationError("--size must be between \(ThumbnailRequest.sizeRange.lowerBound) and \(ThumbnailRequest.sizeRange.upperBound).")
        }
        guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1.") }
        guard (400...8000).contains(sceneSide) else { throw ValidationError("--scene-side must be 400...8000.") }
    }

    func run() async throws {
        #if DEBUG
        FileHandle.standardError.write(Data("warning: this is a debug build; its times mean little. Build with swift build -c release.\n".utf8))
        #endif
        let scratch = try BenchScratch()
        // With --keep the scenes are written there; the scratch holds only the corpus photos' thumbnails.
        defer { scratch.remove() }
        let folder = try keep.map { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return path
        } ?? scratch.folder("crop")
        let corpusFolder = corpus ?? Self.defaultCorpus()
        let photos = try corpusFolder.map { try BenchCorpus.load($0).files } ?? []

        let scenes = try BenchCropScenes.make(repetitions: repetitions, seed: seed, longSide: sceneSide, corpus: photos, into: folder)
        print("crop: \(scenes.scenes.count) scenes (4 frames x 3 backgrounds x 2 products x \(repetitions)), seed \(seed), \(sceneSide) px, backgrounds from \(scenes.backgroundSource); \(box.label) thumbnails")

        var methods: [BenchCropMethod] = []
        let sceneBytes = try scenes.paths.map { try [UInt8](Data(contentsOf: URL(fileURLWithPath: $0))) }
        let ours = BenchCropThumbd.run(sceneBytes, shape: box, rounds: rounds)
        for gravity in Gravity.allCases {
            methods.append(BenchCropMethod(name: "thumbd \(gravity)", windows: ours.crops[gravity] ?? [],
                                           millisecondsPerThumbnail: ours.milliseconds[gravity],
                                           baseline: gravity == .center ? nil : "thumbd center"))
        }
        var notes: [String] = []
        if ChildProcess.isInstalled("vipsthumbnail") {
            for mode in ["centre", "attention"] {
                methods.append(try BenchCropPeers.vips(mode, scenes: scenes, shape: box, rounds: rounds, folder: folder))
            }
        } else {
            notes.append("vipsthumbnail: not installed (apt-get install libvips-tools)")
        }
        switch BenchCropPeers.thumbor(python: python ?? ThumbdExecutable.thumborPython() ?? "python3", scenes: scenes, shape: box, rounds: rounds, folder: folder) {
        case .success(let found): methods += found
        case .failure(let reason): notes.append("thumbor: \(reason)")
        }

        print(BenchCropReport.table(methods, scenes: scenes.scenes, shape: box))
        (BenchCropReport.offShapeNotes(methods, shape: box) + notes).forEach { print($0) }
        if verbose { print(BenchCropReport.perScene(methods, scenes: scenes.scenes)) }
        if !photos.isEmpty {
            print(try BenchCropReport.costOnPhotos(photos, shape: box, rounds: rounds, folder: try scratch.folder("photos")))
        }
        if let keep { print("scenes and thumbnails kept in \(keep)") }
    }

    static func defaultCorpus() -> String? {
        let candidate = "../shared/corpora/photos"
        return FileManager.default.fileExists(atPath: candidate) ? candidate : nil
    }
}
