import ColorManagement
import CoreMetrics
import Metrics
import Synchronization

/// The downloader's instruments. A factory is passed in (rather than the process-wide
/// `MetricsSystem`) so several daemons in one test process keep separate counts.
public final class DownloadMetrics: Sendable {
    let inFlight: Meter
    let bytes: Counter
    let duration: Timer
    private let factory: any MetricsFactory
    private let errors: Mutex<[DownloadError.Code: Counter]>

    public init(factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.factory = factory
        inFlight = Meter(label: "thumbd_downloads_in_flight", factory: factory)
        bytes = Counter(label: "thumbd_download_bytes_total", factory: factory)
        duration = Timer(label: "thumbd_download_duration_seconds", factory: factory)
        errors = Mutex([:])
    }

    func failed(_ code: DownloadError.Code) {
        errors.withLock { counters in
            if counters[code] == nil {
                counters[code] = Counter(label: "thumbd_download_errors_total", dimensions: [("code", code.rawValue)], factory: factory)
            }
            return counters[code]!
        }.increment()
    }
}

/// The pipeline's instruments: jobs, coalescing, cancellation, the CPU queue and stage times.
public final class PipelineMetrics: Sendable {
    let coalescedWaiters: Counter
    let cancellations: Counter
    /// Thumbnail jobs that used a download another variant's job had started (one original, many sizes).
    let sharedDownloads: Counter
    /// Jobs that made their size from a decode another job of the same photo made.
    let sharedDecodes: Counter
    let jobsStarted: Counter
    let rejectedBusy: Counter
    let queueDepth: Meter
    let jobsInFlight: Meter
    let decode: Timer
    let resize: Timer
    /// Converting decoded pixels to sRGB, for photos that had a profile to convert from.
    let colorConversion: Timer
    let placeholder: Timer
    let encode: Timer
    /// Photos made, by what became of their colours: srgb, converted, ignored.
    private let colorOutcomes: [String: Counter]
    let revalidations: Counter
    let notModified: Counter
    /// Signed URLs whose key left the signature out, shown to their origin before a thumbnail made
    /// from another URL was answered; of those, the ones whose object had changed, and those refused.
    let confirmations: Counter
    let confirmationsChanged: Counter
    let confirmationsRefused: Counter
    let shared: SharedTierMetrics

    public init(factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        coalescedWaiters = Counter(label: "thumbd_coalesced_waiters_total", factory: factory)
        cancellations = Counter(label: "thumbd_job_cancellations_total", factory: factory)
        sharedDownloads = Counter(label: "thumbd_shared_downloads_total", factory: factory)
        sharedDecodes = Counter(label: "thumbd_shared_decodes_total", factory: factory)
        jobsStarted = Counter(label: "thumbd_jobs_started_total", factory: factory)
        rejectedBusy = Counter(label: "thumbd_jobs_rejected_busy_total", factory: factory)
        queueDepth = Meter(label: "thumbd_cpu_queue_depth", factory: factory)
        jobsInFlight = Meter(label: "thumbd_jobs_in_flight", factory: factory)
        decode = Timer(label: "thumbd_decode_seconds", factory: factory)
        resize = Timer(label: "thumbd_resize_seconds", factory: factory)
        colorConversion = Timer(label: "thumbd_color_conversion_seconds", factory: factory)
        placeholder = Timer(label: "thumbd_placeholder_seconds", factory: factory)
        colorOutcomes = Dictionary(uniqueKeysWithValues: ["srgb", "converted", "ignored"].map {
            ($0, Counter(label: "thumbd_color_outcomes_total", dimensions: [("outcome", $0)], factory: factory))
        })
        encode = Timer(label: "thumbd_encode_seconds", factory: factory)
        revalidations = Counter(label: "thumbd_revalidations_total", factory: factory)
        notModified = Counter(label: "thumbd_revalidations_not_modified_total", factory: factory)
        confirmations = Counter(label: "thumbd_signed_url_checks_total", factory: factory)
        confirmationsChanged = Counter(label: "thumbd_signed_url_checks_changed_total", factory: factory)
        confirmationsRefused = Counter(label: "thumbd_signed_url_checks_refused_total", factory: factory)
        shared = SharedTierMetrics(factory: factory)
    }

    func recordColor(_ outcome: ColorOutcome, took time: Duration) {
        switch outcome {
        case .sRGB: colorOutcomes["srgb"]?.increment()
        case .converted:
            colorOutcomes["converted"]?.increment()
            colorConversion.recordNanoseconds(time.nanoseconds)
        case .ignored: colorOutcomes["ignored"]?.increment()
        }
    }
}
