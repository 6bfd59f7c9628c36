import Foundation

/// Reading an image file the commands were given. thumbd's commands and thumbd-bench read through
/// this one function, so the bench times the very read the CLI does.
public enum InputFile {
    /// Bigger inputs are refused before reading them whole: no real photo comes near this.
    public static let maxInputBytes = 256 << 20

    public static func read(_ path: String) throws -> [UInt8] {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw InputFileFailure(input: path, code: "read_failed", message: "no such file or not readable")
        }
        if let type = attributes[.type] as? FileAttributeType, type == .typeDirectory {
            throw InputFileFailure(input: path, code: "read_failed", message: "is a directory")
        }
        if let size = attributes[.size] as? Int, size > maxInputBytes {
            throw InputFileFailure(input: path, code: "input_too_large",
                                   message: "file is \(size >> 20) MiB, over the \(maxInputBytes >> 20) MiB input limit")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw InputFileFailure(input: path, code: "read_failed", message: "cannot open the file")
        }
        defer { try? handle.close() }
        return [UInt8](handle.readDataToEndOfFile())
    }
}
