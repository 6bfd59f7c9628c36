import Foundation
import TestSupport

/// Where the GIF tests find their files: `TestImages/gif`, and the photo corpus (which may be absent).
enum GIFTestFiles {
    static let files = CodecTestFiles("gif")
    static func url(_ name: String) -> URL { files.url(name) }
    static func bytes(_ name: String) throws -> [UInt8] { try files.bytes(name) }
    static var all: [String] { files.all }
    static var photos: URL? { CodecTestFiles.photos }
    static let photosMissing = CodecTestFiles.photosMissing
}

