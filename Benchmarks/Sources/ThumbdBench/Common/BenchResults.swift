/// Every figure one `thumbd-bench` run produces. The text report and `--json` are both made from
/// this value, so they never disagree. JSON keys are these names in snake_case; a figure that could
/// not be measured is null.
struct BenchResults: Codable, Sendable {
    var machine = Machine()
    var settings = Settings()
    var corpus = CorpusSummary()
    /// One entry per `--headroom`, in the order given (the first is the one the ratios use).
    var thumbd: [ThumbdRun] = []
    /// The real CLI as a child process over the whole batch: the same footing as vipsthumbnail.
    var thumbdCLI = PeerResult(tool: "thumbd thumbnail (child process)")
    var vips = PeerResult(tool: "vipsthumbnail")
    var pillow = PeerResult(tool: "Pillow")
    var floor = Floor()
    var ratios: [Ratio] = []
    /// `--shape WxH` only: the same files as WxH cover thumbnails (centre), in the same rounds.
    var shape: ShapeRun?
    var large = LargeResult()
    var errors: [FileError] = []
    var notes: [String] = []

    struct Machine: Codable, Sendable {
        var cores = 0
        var build = "release"
        var thumbdExecutable: String?
        var vipsVersion: String?
        var pillowVersion: String?
        var pythonVersion: String?
        var djpegVersion: String?
        var tasksetAvailable = false
        /// 1-minute load average (/proc/loadavg) before and after the run: other work on the machine
        /// makes every figure slower and noisier.
        var loadAverageAtStart: Double?
        var loadAverageAtEnd: Double?
        /// Share of the machine's CPU capacity (all cores) that other processes used during the timed
        /// rounds, from /proc/stat less this process's own time: above a few percent, the figures
        /// (all-cores ones most) are slowed by someone else's work.
        var otherLoadDuringRounds: Double?
    }

    struct Settings: Codable, Sendable {
        var size = 200
        var rounds = 3
        /// How a figure is chosen from the rounds: always the median round (the best is listed beside it).
        var statistic = "median round"
        var warmupRounds = 1
        var jpegQuality = 82
        var headrooms: [Double] = []
        var workers = 0
    }

    struct CorpusSummary: Codable, Sendable {
        var directory = ""
        var files = 0
        var megapixels = 0.0
        var jpegFiles = 0
        var jpegMegapixels = 0.0
        var formats: [String: Int] = [:]
        /// Files in the folder that are not images by name or content (README, MANIFEST...): ignored.
        var skipped: [String] = []
    }

    struct FileError: Error, Codable, Sendable {
        var tool: String
        var file: String
        var code: String
        var message: String
    }

    /// Throughput of one way of running over a set of files.
    struct Throughput: Codable, Sendable {
        var images = 0
        var megapixels = 0.0
        /// Wall seconds of the round reported (the median round).
        var seconds = 0.0
        var imagesPerSecond = 0.0
        var megapixelsPerSecond = 0.0
        var bestImagesPerSecond = 0.0
        var roundSeconds: [Double] = []
        /// Per-image milliseconds pooled over the timed rounds (null where the tool cannot tell per image).
        var p50Ms: Double?
        var p95Ms: Double?
        /// Peak resident memory while this ran: the bench process itself for in-process runs
        /// (VmHWM, reset before the runs), the child (wait4's ru_maxrss, largest round) for child processes.
        var peakRSSBytes: Int?
        /// For child processes: this process's RSS when the child started (the largest over the
        /// rounds). Linux starts a child's ru_maxrss there, so `peakRSSBytes` cannot be below it.
        var spawnerRSSBytes: Int?
        var concurrency = 1
        var pinnedToOneCore = false
        /// CPU milliseconds (user + system, every thread) per image in the median-CPU round; null where
        /// not measured. Less moved by other work on the machine than images/s.
        var cpuMsPerImage: Double?

        init() {}

        init(images: Int, megapixels: Double, roundSeconds: [Double], perImageMs: [Double] = [], concurrency: Int = 1) {
            self.images = images
            self.megapixels = megapixels
            self.roundSeconds = roundSeconds
            self.concurrency = concurrency
            let chosen = BenchStats.median(roundSeconds) ?? 0
            seconds = chosen
            imagesPerSecond = chosen > 0 ? Double(images) / chosen : 0
            megapixelsPerSecond = chosen > 0 ? megapixels / chosen : 0
            let best = roundSeconds.min() ?? 0
            bestImagesPerSecond = best > 0 ? Double(images) / best : 0
            p50Ms = BenchStats.percentile(perImageMs, 50)
            p95Ms = BenchStats.percentile(perImageMs, 95)
        }
    }

    struct StageMs: Codable, Sendable {
        var read = 0.0
        var decode = 0.0
        /// Converting to sRGB (photos with a profile other than sRGB only).
        var color = 0.0
        var resize = 0.0
        /// The ThumbHash of the decoded photo.
        var placeholder = 0.0
        var encode = 0.0
    }

    struct SSIMSummary: Codable, Sendable {
        var files = 0
        var mean: Double?
        var min: Double?
        var minFile: String?
        /// File name -> SSIM (null when it could not be scored; see errors).
        var perFile: [String: Double?] = [:]
    }

    struct ThumbdRun: Codable, Sendable {
        var headroom: Double
        var oneCore: Throughput?
        var allCores: Throughput?
        /// The JPEG files' share of the one-core median round, for the comparison with the JPEG-only floor.
        var jpegOneCore: Throughput?
        /// Mean milliseconds per image in each stage (one-core rounds).
        var meanStageMs: StageMs?
        /// Mean decoded size as a fraction of the full image's pixels (how much the decoder scaled down).
        var meanDecodedPixelFraction: Double?
        var ssim: SSIMSummary?
    }

    struct PeerResult: Codable, Sendable {
        var tool: String
        var installed = false
        var note: String?
        var command: String?
        var oneCore: Throughput?
        var allCores: Throughput?
        var jpegOneCore: Throughput?
        var ssim: SSIMSummary?

        /// A batch run's figure: pinned to one core, or unrestricted.
        mutating func record(_ throughput: Throughput, pinned: Bool) {
            if pinned { oneCore = throughput } else { allCores = throughput }
        }
    }

    struct Floor: Codable, Sendable {
        /// `djpeg -scale 1/8` once per JPEG file (process start-up included).
        var djpeg = PeerResult(tool: "djpeg -scale 1/8")
        /// ImageCodecs.decode at minimum scale 1/8 in this process (file read included, no start-up).
        var inProcess: Throughput?
    }

    struct Ratio: Codable, Sendable {
        var name: String
        var value: Double?
        var meaning: String
    }

    /// thumbd (in-process at the first headroom, and its CLI) and vipsthumbnail at `--shape`.
    struct ShapeRun: Codable, Sendable {
        var width: Int
        var height: Int
        var thumbd: ThumbdRun
        var thumbdCLI = PeerResult(tool: "thumbd thumbnail (child process)")
        var vips = PeerResult(tool: "vipsthumbnail")
    }

    struct ChildMeasure: Codable, Sendable {
        var peakRSSBytes: Int?
        var wallSeconds: Double?
        var status: Int32?
        var error: String?
        /// This process's RSS when the child started; the child's figure cannot be below it.
        var spawnerRSSBytes: Int?
    }

    struct LargeEntry: Codable, Sendable {
        var file: String
        var megapixels: Double?
        var thumbd = ChildMeasure()
        var vips: ChildMeasure?
        /// thumbd's peak RSS divided by vipsthumbnail's (below 1: thumbd needs less).
        var rssRatio: Double?
    }

    struct LargeResult: Codable, Sendable {
        var directory: String?
        var note: String?
        var files: [LargeEntry] = []
    }
}
