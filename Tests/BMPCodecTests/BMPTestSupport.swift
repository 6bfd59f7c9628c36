import Foundation
import TestSupport

/// Where the BMP tests find their files: `TestImages/bmp`, and the photo corpus (which may be absent).
enum BMPTestFiles {
    static let files = CodecTestFiles("bmp")
    static func url(_ name: String) -> URL { files.url(name) }
    static func bytes(_ name: String) throws -> [UInt8] { try files.bytes(name) }
    static var all: [String] { files.all }
    static var photos: URL? { CodecTestFiles.photos }
    static let photosMissing = CodecTestFiles.photosMissing
}

