import Foundation
import ImageCodecs
import ImageCore
import ImageOps
import Synchronization
import TestSupport
import UploadPreparation

/// Five 12-megapixel phone photos, built once per test run: real photographs from the corpus when it
/// is there (synthetic detail otherwise), stored sideways or upside down with EXIF, GPS, XMP and a
/// comment.
enum Fixtures {
    struct Photo: Sendable {
        var name: String
        /// What a person sees: the reference the prepared image is compared with.
        var upright: PixelBuffer
        var orientation: Orientation
        var jpeg: [UInt8]
    }

    static let corpusNames = [
        "lomiri_life_by_Aitzol_Berasategi.jpg", "lomiri_Wine_by_Jakkub_Mede.jpg",
        "lomiri_analogpattern_by_Peter_Nerlich.jpg", "mate_LadyBird.jpg", "jxl_flower_q85_420.jpg",
    ]
    static let orientations: [Orientation] = [.right, .up, .left, .down, .rightMirrored]

    static let twelveMegapixelPhotos: [Photo] = {
        (0..<5).map { index in
            let source: PixelBuffer
            if let url = TestPaths.corpus("photos/\(corpusNames[index])"), let bytes = try? TestPaths.bytes(url),
               let decoded = try? ImageCodecs.decode(bytes) {
                source = decoded.pixels
            } else {
                source = PhonePhoto.synthetic(width: index % 2 == 0 ? 1600 : 1200, height: index % 2 == 0 ? 1200 : 1600,
                                              seed: UInt64(index + 1))
            }
            let upright = PhonePhoto.twelveMegapixel(source)
            let jpeg = try! PhonePhoto.jpeg(upright: upright, orientation: orientations[index])
            return Photo(name: "IMG_000\(index + 1).JPG", upright: upright, orientation: orientations[index], jpeg: jpeg)
        }
    }()

    static func sources(_ photos: [Photo]) -> [SourceImage] {
        photos.map { SourceImage(name: $0.name, bytes: $0.jpeg) }
    }

    /// Runs each image on its own detached task, as a command would on its own threads.
    static let run: UploadPreparer.Runner = { work in try await Task.detached { try work() }.value }
}

/// Counts decodes, to show that a refused batch cost none.
final class DecodeCounter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    var observer: UploadPreparer.DecodeObserver { { _ in self.count.withLock { $0 += 1 } } }
}
