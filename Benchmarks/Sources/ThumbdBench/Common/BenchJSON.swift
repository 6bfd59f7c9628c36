import Foundation

/// `--json` of the bench commands: snake_case keys, sorted, indented.
func printBenchJSON(_ results: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: try encoder.encode(results), as: UTF8.self))
}
