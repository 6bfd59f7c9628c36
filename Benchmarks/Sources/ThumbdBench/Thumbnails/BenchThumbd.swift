import ImageCodecs
import ImageCore
import InputFiles
import ThumbVariant
import Thumbnailer

/// thumbd measured in this process: read the file, decode at the size needed, crop and resize,
/// encode JPEG at the CLI's default quality. Nothing is written to disk (the peers write ~10 KB
/// files, which costs next to nothing beside the rest).
struct BenchThumbd: Sendable {
    var files: [BenchFile]
    /// Cover thumbnails of this box, centre gravity, as vipsthumbnail's `--smartcrop centre`.
    var shape: BenchShape
    var workers: Int

    /// What one image took, stage by stage, in seconds.
    struct ImageTiming: Sendable {
        var total = 0.0
        var read = 0.0
        var decode = 0.0
        var color = 0.0
        var resize = 0.0
        var placeholder = 0.0
        var encode = 0.0
        var decodedPixelFraction = 1.0
    }

    /// What thumbd is asked to make: a centre cover crop in JPEG at the default quality, as the
    /// peers are, by the one maker the daemon and the command line use.
    struct Making: Sendable {
        var maker: ThumbnailMaker
        var variant: Variant
    }

    func request(headroom: Double) -> Making {
        Making(maker: ThumbnailMaker(decodeHeadroom: headroom),
               variant: Variant(width: shape.width, height: shape.height, fit: .cover, gravity: .center, format: .jpeg))
    }

    static func makeOne(_ file: BenchFile, _ request: Making) -> Result<ImageTiming, BenchResults.FileError> {
        let start = BenchStats.now()
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(file.path)
        } catch let failure as InputFileFailure {
            return .failure(.init(tool: "thumbd", file: file.name, code: failure.code, message: failure.message))
        } catch {
            return .failure(.init(tool: "thumbd", file: file.name, code: "read_failed", message: "\(error)"))
        }
        let read = BenchStats.now() - start
        do {
            // As `thumbd thumbnail` makes it: no placeholder, which only the daemon and --placeholder use.
            let thumbnail = try request.maker.make(bytes, as: request.variant, placeholder: false)
            var timing = ImageTiming()
            timing.total = BenchStats.now() - start
            timing.read = read
            timing.decode = seconds(thumbnail.timings.decode)
            timing.color = seconds(thumbnail.timings.color)
            timing.resize = seconds(thumbnail.timings.resize)
            timing.placeholder = seconds(thumbnail.timings.placeholder)
            timing.encode = seconds(thumbnail.timings.encode)
            timing.decodedPixelFraction = Double(thumbnail.decodedWidth * thumbnail.decodedHeight)
                / Double(max(1, thumbnail.source.width * thumbnail.source.height))
            return .success(timing)
        } catch {
            return .failure(.init(tool: "thumbd", file: file.name, code: error.code.rawValue, message: error.message))
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// One pass over every file: the warm-up, and the files that fail (left out of the timed rounds).
    func firstPass(headroom: Double) -> [(file: BenchFile, error: BenchResults.FileError)] {
        let request = request(headroom: headroom)
        return files.compactMap { file in
            if case .failure(let error) = Self.makeOne(file, request) { return (file, error) }
            return nil
        }
    }

    /// One sequential pass on this thread (one core). Per-image and per-stage times in file order.
    func oneCoreRound(_ request: Making) -> BenchRound {
        BenchStats.shrinkAndResetPeakRSS()
        let (start, cpuStart) = (BenchStats.now(), BenchStats.ownCPUSeconds())
        let timings = files.map { file in (try? Self.makeOne(file, request).get()) ?? ImageTiming() }
        let seconds = BenchStats.now() - start
        return BenchRound(seconds: seconds, perImageMs: timings.map { $0.total * 1000 }, stages: timings,
                          peakRSSBytes: BenchStats.peakRSSBytes(), cpuSeconds: BenchStats.ownCPUSeconds() - cpuStart)
    }

    /// One pass with `workers` images at once (one per core), each on its own task.
    func allCoresRound(_ request: Making) async -> BenchRound {
        BenchStats.shrinkAndResetPeakRSS()
        let (start, cpuStart) = (BenchStats.now(), BenchStats.ownCPUSeconds())
        let timings = await Self.concurrentPass(files, request, workers: workers)
        let seconds = BenchStats.now() - start
        return BenchRound(seconds: seconds, perImageMs: timings.map { $0 * 1000 }, peakRSSBytes: BenchStats.peakRSSBytes(),
                          cpuSeconds: BenchStats.ownCPUSeconds() - cpuStart)
    }

    /// The one-core figures of a headroom from its rounds: throughput, the JPEG files' share, and
    /// where the time went.
    func summarize(headroom: Double, oneCore: [BenchRound], allCores: [BenchRound]) -> BenchResults.ThumbdRun {
        var run = BenchResults.ThumbdRun(headroom: headroom)
        let megapixels = BenchCorpus.megapixels(files)
        if !oneCore.isEmpty {
            run.oneCore = BenchResults.Throughput(images: files.count, megapixels: megapixels, rounds: oneCore)
            run.jpegOneCore = .share(of: oneCore, subset: files.indices.filter { files[$0].isJPEG }, files: files)
        }
        if !allCores.isEmpty {
            run.allCores = BenchResults.Throughput(images: files.count, megapixels: megapixels, rounds: allCores, concurrency: workers)
        }
        let all = oneCore.flatMap(\.stages)
        if !all.isEmpty {
            let n = Double(all.count)
            func mean(_ value: (ImageTiming) -> Double) -> Double { all.reduce(0) { $0 + value($1) } / n }
            run.meanStageMs = BenchResults.StageMs(read: mean(\.read) * 1000, decode: mean(\.decode) * 1000, color: mean(\.color) * 1000,
                                                   resize: mean(\.resize) * 1000, placeholder: mean(\.placeholder) * 1000,
                                                   encode: mean(\.encode) * 1000)
            run.meanDecodedPixelFraction = mean(\.decodedPixelFraction)
        }
        return run
    }

    /// Every file once, `workers` at a time; returns each image's own seconds.
    private static func concurrentPass(_ files: [BenchFile], _ request: Making, workers: Int) async -> [Double] {
        await withTaskGroup(of: Double.self) { group in
            var next = 0
            var timings: [Double] = []
            timings.reserveCapacity(files.count)
            while next < min(workers, files.count) {
                let file = files[next]
                group.addTask { (try? makeOne(file, request).get())?.total ?? 0 }
                next += 1
            }
            for await seconds in group {
                timings.append(seconds)
                if next < files.count {
                    let file = files[next]
                    group.addTask { (try? makeOne(file, request).get())?.total ?? 0 }
                    next += 1
                }
            }
            return timings
        }
    }

    /// The in-process floor, one pass: read each JPEG and decode it at 1/8 scale (libjpeg-turbo's DCT
    /// scaling), nothing else; no JPEG thumbnailer built on libjpeg-turbo beats this on one core.
    static func decodeFloorRound(_ jpegs: [BenchFile]) -> BenchRound {
        let hint = DecodeScaleHint(minimumScale: 0.125)
        let start = BenchStats.now()
        let ms = jpegs.map { file in
            let begin = BenchStats.now()
            if let bytes = try? InputFile.read(file.path) {
                _ = try? ImageCodecs.decode(bytes, scale: hint)
            }
            return (BenchStats.now() - begin) * 1000
        }
        return BenchRound(seconds: BenchStats.now() - start, perImageMs: ms)
    }
}
