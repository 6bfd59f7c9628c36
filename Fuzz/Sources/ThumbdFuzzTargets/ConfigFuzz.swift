import Dispatch
import Foundation
import ThumbdConfig

/// The configuration file: the input is written as a YAML file and read as `thumbd serve --config`
/// reads it (Yams, swift-configuration's provider, then every setting's own parser).
enum ConfigFuzz {
    /// One file per process, rewritten for every input.
    static let file: String = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-fuzz-config-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("thumbd.yaml").path
    }()
    static let environment = ["HOME": "/nonexistent/thumbd-fuzz-home"]

    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        guard FileManager.default.createFile(atPath: file, contents: Data(data)) else { return }
        let done = DispatchSemaphore(value: 0)
        let path = file, environment = environment
        Task {
            _ = try? await ThumbdConfiguration.load(file: path, environment: environment)
            done.signal()
        }
        done.wait()
    }
}
