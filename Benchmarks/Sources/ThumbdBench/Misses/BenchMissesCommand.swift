import ArgumentParser
import ConsoleText
import Foundation

/// `thumbd-bench misses`: thumbnails made on a miss over HTTP, thumbd serve against a thumbor server,
/// both cropping the centre to one box from the same origin.
struct BenchMissesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "misses",
        abstract: "Measure misses over HTTP: thumbd serve against a thumbor server, centre crops from one origin.",
        discussion: HelpText.reflowed("""
            SETS: the 48 generated product scenes of `thumbd-bench crop` (1200 px on the long
            side, JPEG q92; --repetitions 2, --seed 19), then the JPEGs of --corpus as they are
            (--no-photos leaves them out).

            SERVERS, on loopback, started by the bench:
            - origin: nginx (one worker, sendfile; python3 -m http.server without nginx), serving
              each round's files under a folder of its own, so every request of a round is a miss
              for both servers (a URL neither has seen);
            - thumbd serve with its defaults (access log on, cache in a fresh folder), asked
              /v1/thumbnail?url=…&size=WxH&gravity=center;
            - thumbor (`make crop-deps`; --python names another interpreter) with its defaults (HTTP
              loader, PIL engine, originals in its file storage, no result storage), JPEG quality 82
              and EXIF orientation on as thumbd has them, one process per core (--thumbor-processes),
              asked /unsafe/WxH/URL.

            LOAD: --concurrency clients (8), each asking the next URL as soon as its last answer is
            in; every answer must be a 200 JPEG of exactly the box. A set is asked for under new URLs
            as many times as it takes to make --min-requests (480) a pass, so a pass lasts seconds. The two servers take turns,
            the one that goes first alternating by round, after an untimed warm-up of each.

            FIGURES per set and round: thumbnails a second (the wall clock of the pass), the
            server's CPU milliseconds a thumbnail (all its processes), p50 and p99 latency, and
            the ratios thumbd / thumbor; the summary gives each ratio's range over --rounds. The
            origin's and the clients' CPU are printed, since they share the cores: when the
            cores are not busy with the servers, the load is the limit, and the bench says so.
            """)
    )

    @Option(help: "Folder of photos: scene backgrounds and the photo set (default: ../shared/corpora/photos when present).")
    var corpus: String?
    @Option(help: "Scenes of each frame, background and product kind (2: 48 scenes).") var repetitions = 2
    @Option(help: "Seed of the scene generator.") var seed: UInt64 = 19
    @Option(help: ArgumentHelp("The box both servers crop to.", valueName: "WxH"), transform: BenchShape.parse)
    var shape = BenchShape(width: 300, height: 400)
    @Option(help: "Clients asking at once.") var concurrency = 8
    @Option(help: "Timed rounds (each a pass of both servers over fresh URLs).") var rounds = 3
    @Option(help: "Requests of a pass at least: a smaller set is asked for again under new URLs until it has them.")
    var minRequests = 480
    @Option(help: "thumbor processes (default: one per core).") var thumborProcesses: Int?
    @Option(help: "Python interpreter whose environment has thumbor (default: .build/thumbor-venv's, from make crop-deps).")
    var python: String?
    @Flag(help: "Only the generated scenes, not the corpus photos.") var noPhotos = false

    /// thumbd's default JPEG quality, given to thumbor as well.
    static let quality = 82

    func validate() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1.") }
        guard minRequests >= 1 else { throw ValidationError("--min-requests must be at least 1.") }
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be from 1 to 256.") }
        guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1.") }
        if let thumborProcesses, !(1...64).contains(thumborProcesses) {
            throw ValidationError("--thumbor-processes must be from 1 to 64.")
        }
    }

    func run() async throws {
        #if DEBUG
        FileHandle.standardError.write(Data("warning: this is a debug build; its times mean little. Build with swift build -c release.\n".utf8))
        #endif
        let thumbd = try ThumbdExecutable.required()
        let interpreter = python ?? ThumbdExecutable.thumborPython() ?? "python3"
        guard let thumbor = BenchThumbor.executable(python: interpreter) else {
            throw ValidationErrorMessage("thumbor: not installed beside \(interpreter): \(BenchThumbor.installHint)")
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let scratch = try BenchScratch()
        defer { scratch.remove() }
        let sets = try BenchMissesSets.make(corpus: corpus ?? BenchCropCommand.defaultCorpus(), photos: !noPhotos,
                                           repetitions: repetitions, seed: seed, scratch: scratch)
        let run = try BenchMissesRun(thumbd: thumbd, thumbor: thumbor, thumborProcesses: thumborProcesses ?? cores,
                                     shape: shape, concurrency: concurrency, minimumRequests: minRequests, scratch: scratch, sets: sets)
        defer { run.stop() }
        print(run.header(cores: cores, rounds: rounds))
        let passes = try run.measure(rounds: rounds)
        print(BenchMissesReport(passes: passes, cores: cores).text)
    }
}
