import ArgumentParser
import ConsoleText
import Dispatch
import Foundation
import ThumbCache
import ThumbPipeline
import ThumbServer
import ThumbVariant
import ThumbdConfig
import Thumbnailer

struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Make the thumbnails of a list of URLs or of a product-list page before anyone asks for them.",
        discussion: HelpText.reflowed("""
            The job goes to the daemon the configuration names (server.listen, THUMBD_LISTEN) when it answers;
            otherwise it runs in this process against the same cache directory. On a terminal a live bar shows
            done/total, rate, failures and ETA; otherwise plain progress lines. Ctrl-C cancels the job: no new
            downloads start and those nobody else waits for are closed. With --size given several times (at most 8),
            each photo is downloaded and decoded once for all its sizes, and each size counts as one thumbnail.

            Exit status: 0 when every URL was made or already cached, 1 when any failed (each failure is listed
            with its code), 2 for a usage error, 130 when cancelled with Ctrl-C.

            Examples:
              thumbd prefetch https://cdn.example.com/a.jpg \\
                  https://cdn.example.com/b.jpg --size 200
              thumbd prefetch --page page-1.json --size 240
              thumbd prefetch --page page-1.json --size 160 --size 320 --size 640
              thumbd prefetch --page page-1.json --preset grid
              thumbd prefetch --page-url 'https://api.example.com/products?page_no=1' \\
                  --pages 3
            """)
    )

    @Argument(help: "Image URLs.") var urls: [String] = []
    @Option(help: ArgumentHelp("A product-list page as the marketplace API sends it (JSON).", valueName: "FILE")) var page: String?
    @Option(name: .customLong("page-url"), help: ArgumentHelp("Fetch the page JSON from here, following has_next.", valueName: "URL"))
    var pageURL: String?
    @Option(help: "With --page-url: how many pages at most (default 1).") var pages: Int = 1
    @Flag(name: .customLong("include-images"), help: "Detail images too, not only each product's thumbnail.") var includeImages = false
    @Option(help: ArgumentHelp("A configured preset (presets: in the YAML file): its whole variant, instead of the options below.", valueName: "NAME")) var preset: String?
    @OptionGroup(title: "The variant (as the API's query parameters)") var variantOptions: VariantOptions
    @Option(help: ArgumentHelp("auto, jpeg, png, webp, avif or jxl (default auto).", valueName: "FORMAT")) var format: String?
    @Option(help: ArgumentHelp("YAML configuration file.", valueName: "FILE")) var config: String?
    @Flag(name: .customLong("in-process"), help: "Do the work here even if a daemon answers.") var inProcess = false

    func validate() throws {
        let sizes = variantOptions.box.size
        if let twice = Dictionary(grouping: sizes.map { $0.lowercased() }, by: { $0 }).first(where: { $0.value.count > 1 }) {
            throw ValidationError("--size \(twice.key) is given twice: each size is made once.")
        }
        guard sizes.count <= Prefetcher.maxSizes else {
            throw ValidationError("--size is given \(sizes.count) times; a job makes at most \(Prefetcher.maxSizes) sizes of each photo")
        }
        let sources = (urls.isEmpty ? 0 : 1) + (page == nil ? 0 : 1) + (pageURL == nil ? 0 : 1)
        guard sources == 1 else { throw ValidationError("give URLs, or --page FILE, or --page-url URL (exactly one of them)") }
        guard (1...10_000).contains(pages) else { throw ValidationError("--pages must be between 1 and 10000") }
    }

    func run() async throws {
        let loaded: ThumbdConfiguration
        loaded = try await loadSettings(file: config)
        let settings = loaded.daemon
        var defaults = settings.server.variants
        defaults.onlyPresets = false  // a daemon that takes only presets says so itself
        // Two spellings of one box (128 and 128x128) are one thumbnail, as for the API's sizes.
        let variants = Prefetcher.distinct(try variantOptions.variants(format: format, preset: preset, defaults: defaults).map(\.variant))
        let job = try makeJob(variants: variants)

        let backend: any PrefetchBackend
        if !inProcess, let daemon = await DaemonBackend.find(server: settings.server, adminToken: settings.server.adminToken) {
            backend = daemon
        } else {
            do {
                backend = try InProcessBackend(settings: settings, cacheDescription: settings.cacheDirectory?.path ?? "memory only")
            } catch let error as CacheError {
                throw PrefetchExit.failure("cannot open the cache at \(loaded.cacheLocation.url.path): \(error)")
            }
        }
        let outcome = await drive(job, on: backend)
        await backend.close()
        switch outcome {
        case .failure(let failure): throw PrefetchExit.failure(failure.description)
        case .success(let status):
            if status.state == .cancelled { throw ExitCode(130) }
            if status.failed > 0 { throw ExitCode.failure }
        }
    }

    private func makeJob(variants: [Variant]) throws -> PrefetchJobRequest {
        if let page {
            guard let data = FileManager.default.contents(atPath: page) else { throw ValidationError("cannot read \(page)") }
            let parsed: ProductListPage
            do { parsed = try JSONDecoder().decode(ProductListPage.self, from: data) } catch {
                throw ValidationError("\(page) is not a product-list page ({\"pages\":[{\"thumbnail\":…}],…}): \(error)")
            }
            return PrefetchJobRequest(source: .page(parsed, includeImages: includeImages), pageJSON: data, variants: variants, includeImages: includeImages)
        }
        if let pageURL {
            return PrefetchJobRequest(source: .pageURL(pageURL, pages: pages, includeImages: includeImages), variants: variants, includeImages: includeImages)
        }
        return PrefetchJobRequest(source: .urls(urls), variants: variants, includeImages: includeImages)
    }

    /// Submits, shows progress until the job ends, and cancels it on Ctrl-C.
    private func drive(_ job: PrefetchJobRequest, on backend: any PrefetchBackend) async -> Result<PrefetchStatus, PrefetchFailure> {
        var progress = PrefetchProgress()
        let status: PrefetchStatus
        do { status = try await backend.submit(job) } catch {
            return .failure(PrefetchFailure("\(error)"))
        }
        let interrupt = Interrupt()
        var current = status
        var cancelSent = false
        while current.state == .running {
            if interrupt.happened, !cancelSent {
                cancelSent = true
                // A daemon answers with the last report and forgets the job: nothing left to poll.
                if let last = try? await backend.cancel(current.id) {
                    current = last
                    break
                }
            }
            progress.show(current)
            try? await Task.sleep(for: .milliseconds(cancelSent ? 50 : 200))
            do { current = try await backend.status(current.id) } catch {
                return .failure(PrefetchFailure("lost the job: \(error)"))
            }
        }
        progress.show(current)
        progress.summary(current, where: backend.label, sizes: job.variants.count)
        return .success(current)
    }
}

enum PrefetchExit: Error, CustomStringConvertible {
    case failure(String)
    var description: String {
        switch self { case .failure(let message): message }
    }
}

/// SIGINT, noticed instead of killing the process, so the job can be cancelled cleanly.
final class Interrupt: @unchecked Sendable {
    // Kept only to keep the source alive; set once in init.
    private let source: any DispatchSourceSignal
    private let flag = Flag()

    init() {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [flag] in flag.set() }
        source.resume()
    }

    var happened: Bool { flag.value }

    private final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var raised = false
        func set() { lock.withLock { raised = true } }
        var value: Bool { lock.withLock { raised } }
    }
}

