import Prometheus
import UploadPreparation

/// What upload preparation did: decodes started (zero for a batch refused by its rules), encodes
/// tried, and images by what was done with them.
final class UploadMetrics: Sendable {
    let decodes: Counter
    let encodes: Counter
    private let images: [PreparedImage.Action: Counter]

    init(registry: PrometheusCollectorRegistry) {
        decodes = registry.makeCounter(descriptor: metric("upload_decodes", unit: "total",
                                                          help: "Upload originals whose pixels were decoded"))
        encodes = registry.makeCounter(descriptor: metric("upload_encodes", unit: "total",
                                                          help: "Encodings tried while fitting upload images to their budget"))
        var images: [PreparedImage.Action: Counter] = [:]
        for action in [PreparedImage.Action.passedThrough, .metadataRemoved, .encoded] {
            images[action] = registry.makeCounter(descriptor: metric("upload_images", unit: "total", help: "Upload images prepared, by what was done"),
                                                  labels: [("action", action.rawValue)])
        }
        self.images = images
    }

    func record(_ prepared: [PreparedImage]) {
        for image in prepared {
            images[image.action]?.increment()
            encodes.increment(by: Int64(image.steps.count))
        }
    }
}
