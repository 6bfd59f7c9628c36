import Foundation

/// The bench's Python programs (`Scripts/*.py` in this target's folder, each readable and runnable
/// on its own), embedded in the binary by SwiftPM so thumbd-bench finds them from any working
/// directory and a copied binary still carries them.
enum BenchScript {
    /// thumbor's centre and smart crops, for `crop`.
    case thumborCrop
    /// Pillow's square thumbnails, for `thumbnails`.
    case pillowThumbnails
    /// The slow origin `prefetch` fetches from.
    case prefetchOrigin

    var fileName: String {
        switch self {
        case .thumborCrop: "thumbor_crop.py"
        case .pillowThumbnails: "pillow_thumbnails.py"
        case .prefetchOrigin: "prefetch_origin.py"
        }
    }

    var source: [UInt8] {
        switch self {
        case .thumborCrop: PackageResources.thumbor_crop_py
        case .pillowThumbnails: PackageResources.pillow_thumbnails_py
        case .prefetchOrigin: PackageResources.prefetch_origin_py
        }
    }

    /// Writes the program into `folder` under its own name and returns its path: run from a file,
    /// a traceback names the script and its lines.
    func write(into folder: String) throws -> String {
        let path = (folder as NSString).appendingPathComponent(fileName)
        try Data(source).write(to: URL(fileURLWithPath: path))
        return path
    }
}
