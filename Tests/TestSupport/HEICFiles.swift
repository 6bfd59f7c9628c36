import ChildProcess
import Foundation
import ImageCodecs
import ImageCore

/// HEIC files made at test time with libheif's own `heif-enc` (libheif-examples) from PNGs written
/// here, so every pixel is known; nothing is committed. (HEIFCodecTests also writes with libheif's
/// encoder API, for what heif-enc 1.15 has no option for: irot/imir, an arbitrary ICC profile.)
public enum HEIFEnc {
    /// Why heif-enc cannot make HEIC here, or nil when it can: the program, and an HEVC encoder
    /// (x265 is built into Debian 12's libheif1; other builds load it as a plugin).
    public static let missing: String? = {
        guard ChildProcess.isInstalled("heif-enc") else {
            return "heif-enc is not installed (apt-get install libheif-examples, or make reference-deps): HEIC tests cannot run"
        }
        guard let list = try? ChildProcess.run("heif-enc", ["--list-encoders"], timeoutSeconds: 30),
              let heic = list.stdoutText.range(of: "HEIC encoders:"),
              list.stdoutText[heic.upperBound...].drop(while: \.isNewline).hasPrefix("- ") else {
            return "heif-enc has no HEVC encoder (install libheif-plugin-x265 where libheif loads codecs as plugins): HEIC tests cannot run"
        }
        return nil
    }()

    public static var available: Bool { missing == nil }

    /// `image` written as PNG and encoded by heif-enc. `arguments` go before the file names.
    public static func encode(_ image: PixelBuffer, quality: Int = 90, _ arguments: [String] = []) throws -> [UInt8] {
        try encode(file: try ImageCodecs.encode(image, .png), extension: "png", quality: quality, arguments)
    }

    /// Any input heif-enc reads (PNG, JPEG), as bytes.
    public static func encode(file input: [UInt8], extension ext: String, quality: Int = 90, _ arguments: [String] = []) throws -> [UInt8] {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("in.\(ext)"), output = folder.appendingPathComponent("out.heic")
        try Data(input).write(to: source)
        let result = try ChildProcess.run("heif-enc", arguments + ["-q", "\(quality)", "-o", output.path, source.path], timeoutSeconds: 120)
        guard result.status == 0 else { throw Failure("heif-enc failed (\(result.status)): \(result.stderrText)") }
        return [UInt8](try Data(contentsOf: output))
    }

    public static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-heif-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}
