import Foundation
import TestSupport
import Testing
@testable import ThumbdConfig
import Yams

/// A mistyped key or THUMBD_* variable stops thumbd by name, with the nearest known one; the known
/// set is config/thumbd.yaml's, and every key the code reads is in it.
@Suite("Unknown settings are refused by name")
struct UnknownSettingsTests {
    static let home = ["HOME": "/home/tester"]

    func refusal(file text: String? = nil, _ environment: [String: String] = [:]) async throws -> (message: String, file: String?) {
        let file = try text.map { try UnknownSettingsTests.write($0) }
        do {
            _ = try await ThumbdConfiguration.load(file: file, environment: Self.home.merging(environment) { $1 })
        } catch let error as ConfigError {
            return (error.message, file)
        }
        Issue.record("loaded without a word")
        return ("", file)
    }

    static func write(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-unknown-\(UUID().uuidString).yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func aMistypedKeyInTheFileIsNamedWithItsLineAndTheKnownOne() async throws {
        let (message, file) = try await refusal(file: """
            server:
              listen: 127.0.0.1:9000
            cache:
              disk_max_gib: 5
            """)
        #expect(message == "cache.disk_max_gib in \(file!), line 4: no such key; did you mean cache.disk_max_mib?")
    }

    @Test func aMistypedVariableIsNamedWithTheKnownOne() async throws {
        #expect(try await refusal(["THUMBD_CACHE_DISK_MAX_GIB": "500"]).message
                == "THUMBD_CACHE_DISK_MAX_GIB in the environment: no such setting; did you mean THUMBD_CACHE_DISK_MAX_MIB?")
        #expect(try await refusal(["THUMBD_LISTN": "0.0.0.0:8080"]).message
                == "THUMBD_LISTN in the environment: no such setting; did you mean THUMBD_LISTEN?")
    }

    @Test func aKeyInTheWrongSectionAnUnknownSectionAndEveryProblemAtOnce() async throws {
        let (message, file) = try await refusal(file: """
            server:
              disk_max_mib: 100
            cahce:
              dir: /tmp/x
            zzz: 1
            """, ["THUMBD_NOT_A_THING": "1"])
        let lines = message.split(separator: "\n").map(String.init)
        #expect(lines == [
            "THUMBD_NOT_A_THING in the environment: no such setting (config/thumbd.yaml lists every setting, each also THUMBD_SECTION_KEY)",
            "server.disk_max_mib in \(file!), line 2: no such key; did you mean cache.disk_max_mib?",
            "cahce in \(file!), line 3: no such key; did you mean cache?",
            "zzz in \(file!), line 5: no such key (config/thumbd.yaml lists every key)",
        ])
    }

    @Test func namedMapsTheVariablesOfThumbdsOwnToolsAndEmptySectionsPass() async throws {
        let file = try Self.write("""
            server:
            presets:
              grid: { size: 240 }
            sources:
              s3:
                buckets:
                  photos: { region: eu-west-1 }
            """)
        let environment = Self.home.merging(["THUMBD_CORPORA": "/x", "THUMBD_OPS_BENCH": "1", "THUMBD_LISTEN": "127.0.0.1:1",
                                             "THUMBD_DOWNLOAD_TIMEOUT": "3", "THUMBD_CONFIG": file]) { $1 }
        let loaded = try await ThumbdConfiguration.load(environment: environment)
        #expect(loaded.daemon.server.variants.presets["grid"] != nil)
    }

    /// Every leaf of config/thumbd.yaml, as a dotted key (an empty map counts as a leaf).
    static func documentedKeys() throws -> Set<String> {
        let text = try String(contentsOfFile: TestPaths.packageRoot.appendingPathComponent("config/thumbd.yaml").path, encoding: .utf8)
        var keys: Set<String> = []
        func walk(_ mapping: Node.Mapping, _ prefix: String) {
            for (key, value) in mapping {
                let name = prefix + key.string!
                if let inner = value.mapping, !inner.isEmpty { walk(inner, name + ".") } else { keys.insert(name) }
            }
        }
        walk(try #require(try Yams.compose(yaml: text)?.mapping), "")
        return keys
    }

    @Test func theKnownSetIsExactlyWhatConfigThumbdYamlDocuments() throws {
        let documented = try Self.documentedKeys()
        #expect(documented == KnownSettings.keys.union(KnownSettings.openMaps),
                "documented only: \(documented.subtracting(KnownSettings.keys.union(KnownSettings.openMaps)).sorted()); known only: \(KnownSettings.keys.union(KnownSettings.openMaps).subtracting(documented).sorted())")
        // The short names the file's header lists are settings too.
        let text = try String(contentsOfFile: TestPaths.packageRoot.appendingPathComponent("config/thumbd.yaml").path, encoding: .utf8)
        let listed = Set(text.matches(of: #/#\s+(THUMBD_[A-Z_]+)\s+([a-z_.]+)/#).map { (String($0.output.1), String($0.output.2)) }.map(\.0))
        #expect(!listed.isEmpty)
        for variable in listed { #expect(KnownSettings.settingVariables[variable] != nil, "\(variable)") }
    }

    /// Every key the code asks for is known (else an operator setting it would be refused), and every
    /// known key is asked for (else it would be accepted and ignored).
    @Test func theCodeReadsExactlyTheKnownKeys() async throws {
        let recorder = KeyRecorder()
        _ = try await ThumbdConfiguration.load(file: nil, environment: Self.home, recorder: recorder)
        let read = recorder.keys
        #expect(read == KnownSettings.keys, "read only: \(read.subtracting(KnownSettings.keys).sorted()); known only: \(KnownSettings.keys.subtracting(read).sorted())")
    }

    @Test func nearestNamesAreFoundByEditsOrByTheSameLastPart() {
        #expect(KnownSettings.editDistance("disk_max_gib", "disk_max_mib") == 1)
        #expect(KnownSettings.editDistance("", "abc") == 3)
        #expect(KnownSettings.nearest(to: "cache.disk_max_gib", among: KnownSettings.keys) == "cache.disk_max_mib")
        #expect(KnownSettings.nearest(to: "download.max_per_hosts", among: KnownSettings.keys) == "download.max_per_host")
        #expect(KnownSettings.nearest(to: "completely.different", among: KnownSettings.keys) == nil)
        #expect(KnownSettings.ordered.count == KnownSettings.keys.count, "a key listed twice")
    }
}
