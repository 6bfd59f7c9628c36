import ChildProcess
import Foundation
import ImageCore
import Testing

/// Runs Scripts/thumbhash_reference.py, the thumbhash-python package's view of the same pixels.
enum PythonReference {
    struct Encoded {
        /// As thumbhash-python ships it (Python's round-half-to-even).
        let stock: [UInt8]
        /// With thumbhash-python's round() made round-half-up, as the reference encoders round.
        let halfUp: [UInt8]
        /// How many roundings the two disagreed on; stock and halfUp are equal when it is 0.
        let tieCount: Int
    }

    struct RunError: Error, CustomStringConvertible {
        let description: String
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Scripts/thumbhash_reference.py")

    /// The installed thumbhash-python version, or why the cross-check cannot run.
    static let availability: Result<String, RunError> = Result { try run(["version"]).trimmingCharacters(in: .whitespacesAndNewlines) }
        .mapError { $0 as? RunError ?? RunError(description: "\($0)") }

    /// The version, after recording an issue when Python or the package is missing: a missing
    /// reference must fail the run, not let the cross-check pass without comparing anything.
    static func requireAvailable(sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        switch availability {
        case .success(let version):
            return version
        case .failure(let error):
            Issue.record("The thumbhash-python cross-check could not run: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    static func encode(_ image: PixelBuffer) throws -> Encoded {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thumbhash-\(UUID().uuidString).rgba")
        try Data(image.pixels).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let lines = try run(["encode", file.path, String(image.width), String(image.height)])
            .split(separator: "\n").map(String.init)
        guard lines.count == 3, let stock = bytes(hex: lines[0]), let halfUp = bytes(hex: lines[1]), let ties = Int(lines[2]) else {
            throw RunError(description: "unexpected encode output: \(lines)")
        }
        return Encoded(stock: stock, halfUp: halfUp, tieCount: ties)
    }

    static func decode(_ hash: [UInt8]) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        let fields = try run(["decode", hex(hash)]).split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard fields.count == 3, let width = Int(fields[0]), let height = Int(fields[1]), let rgba = bytes(hex: fields[2]) else {
            throw RunError(description: "unexpected decode output: \(fields.prefix(2))")
        }
        return (width, height, rgba)
    }

    private static func run(_ arguments: [String]) throws -> String {
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw RunError(description: "the script \(script.path) is missing")
        }
        let result: ChildProcessResult
        do {
            result = try ChildProcess.run("/usr/bin/env", ["python3", script.path] + arguments, timeoutSeconds: 600)
        } catch {
            throw RunError(description: "python3 could not be started (\(error))")
        }
        let message = result.stderrText.trimmingCharacters(in: .whitespacesAndNewlines)
        switch result.status {
        case 0:
            return result.stdoutText
        case 3:
            throw RunError(description: "thumbhash-python is not installed for python3: \(message)")
        case 127:
            throw RunError(description: "python3 was not found on PATH: \(message)")
        case let status:
            throw RunError(description: "python3 \(arguments.first ?? "") exited with \(status): \(message)")
        }
    }
}
