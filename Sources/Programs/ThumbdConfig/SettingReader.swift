import ByteUnits
import Configuration
import Foundation
import Synchronization

/// What one load asked for: each key with the value it took (its default when nothing set it).
/// `thumbd config check` prints them; the test that keeps `KnownSettings` true reads the keys.
final class KeyRecorder: Sendable {
    let values = Mutex<[String: String]>([:])
    var keys: Set<String> { values.withLock { Set($0.keys) } }

    func note(_ key: String, _ value: String) { values.withLock { $0[key] = value } }
}

/// Reads typed settings from the layered providers, refusing values that do not parse or fall out
/// of range with a message that names the key and its environment variable. (The library's own
/// typed getters turn a bad value into the default silently; a daemon should not.)
struct SettingReader {
    let reader: ConfigReader
    var recorder: KeyRecorder?

    /// THUMBD_SECTION_KEY: the generic environment spelling of `section.key`.
    static func environmentName(_ key: String) -> String {
        "THUMBD_" + key.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    func string(_ key: String) -> String? {
        let value = reader.string(forKey: ConfigKey(key)).map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        recorder?.note(key, value)
        return value.isEmpty ? nil : value
    }

    /// The setting's text, or `fallback` (noted as the value in force) when nothing sets it.
    private func text(_ key: String, default fallback: @autoclosure () -> String) -> String? {
        guard let text = string(key) else {
            recorder?.note(key, fallback())
            return nil
        }
        return text
    }

    func string(_ key: String, default fallback: String) -> String { text(key, default: fallback) ?? fallback }

    func int(_ key: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = text(key, default: String(fallback)) else { return fallback }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")) else {
            throw invalid(key, text, "a whole number")
        }
        guard range.contains(value) else { throw invalid(key, text, "between \(range.lowerBound) and \(range.upperBound)") }
        return value
    }

    func double(_ key: String, default fallback: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = text(key, default: Self.plain(fallback)) else { return fallback }
        guard let value = Double(text), range.contains(value) else {
            throw invalid(key, text, "a number between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }

    func bool(_ key: String, default fallback: Bool) throws -> Bool {
        guard let text = text(key, default: String(fallback))?.lowercased() else { return fallback }
        switch text {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw invalid(key, text, "true or false")
        }
    }

    /// A byte count, plain or with a unit: 307200, 300KiB, 20MB (see `ByteSize.parse`).
    func bytes(_ key: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = text(key, default: ByteSize.format(fallback)) else { return fallback }
        guard let value = ByteSize.parse(text.replacingOccurrences(of: "_", with: "")), range.contains(value) else {
            throw invalid(key, text, "a byte count between \(range.lowerBound) and \(range.upperBound), like 300KiB or 20MB")
        }
        return value
    }

    /// Seconds, possibly fractional.
    func seconds(_ key: String, default fallback: Double, range: ClosedRange<Double>) throws -> Duration {
        .milliseconds(Int64((try double(key, default: fallback, range: range) * 1000).rounded()))
    }

    func choice<T: RawRepresentable>(_ key: String, default fallback: T, _ type: T.Type) throws -> T
    where T.RawValue == String, T: CaseIterable {
        guard let text = text(key, default: fallback.rawValue) else { return fallback }
        guard let value = T(rawValue: text.lowercased()) else {
            throw invalid(key, text, "one of " + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }

    /// 30 for 30.0, 0.5 as it is: a default as the file would write it.
    static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    func invalid(_ key: String, _ value: String, _ expected: String) -> ConfigError {
        ConfigError("setting \(key) (or \(Self.environmentName(key))) is \"\(value)\"; it must be \(expected)")
    }
}
