import ChildProcess
import Foundation
import ImageCore
import Testing
import TestSupport

/// Every value that `--help` names is accepted: for each subcommand, each option whose help lists
/// its values (`(values: a, b)` from ArgumentParser, or a value name `<a|b>`) is run with each value
/// on a real file, and must not be refused as a usage error.
struct HelpValuesTests {
    /// One option's listed values, as a subcommand's help shows them.
    struct ListedOption: CustomStringConvertible {
        var command: [String]
        var option: String
        var values: [String]
        var description: String { "thumbd \(command.joined(separator: " ")) \(option)" }
    }

    /// `thumbd --help`'s subcommands, and theirs, depth first.
    static func commands() throws -> [[String]] { try HelpPages.commands(of: CLI.executable) }

    /// Values a help entry lists: ArgumentParser's `(values: a, b)`, a value name of lower-case
    /// choices `<a|b|c>` (upper case is a placeholder such as RRGGBB), and a list in the prose
    /// right after a colon or the value name, `: a, b or c` (parenthesised remarks after an item
    /// allowed; a list inside a sentence, "its size, fit or focus", names options, not values).
    static func listedValues(_ entry: String) -> [String] {
        var values: [String] = []
        if let listed = entry.range(of: #"\(values: [^)]*\)"#, options: .regularExpression) {
            values += entry[listed].dropFirst("(values: ".count).dropLast()
                .components(separatedBy: ";")[0]
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if let name = entry.range(of: #"<[A-Za-z0-9,]+(\|[A-Za-z0-9,]+)+>"#, options: .regularExpression) {
            values += entry[name].dropFirst().dropLast().split(separator: "|").map(String.init)
                .filter { $0 == $0.lowercased() && !$0.contains(",") }
        }
        let item = #"[a-z0-9]+(?: \([^)]*\))?"#
        let prose = try! NSRegularExpression(pattern: #"(?<=: |> )((?:\#(item), )+(?:\#(item),? )?or [a-z0-9]+)(?=[.,;)]| \(|$)"#)
        for match in prose.matches(in: entry, range: NSRange(entry.startIndex..., in: entry)) {
            guard let range = Range(match.range(at: 1), in: entry) else { continue }
            let list = entry[range].replacingOccurrences(of: #" \([^)]*\)"#, with: "", options: .regularExpression)
            values += list.replacingOccurrences(of: " or ", with: ", ").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return values.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    }

    static func listedOptions() throws -> [ListedOption] {
        try commands().flatMap { command -> [ListedOption] in
            let help = try CLI.run(command + ["--help"], timeout: 30).stdoutText
            let options = HelpPages.entries(of: help, in: { !["SUBCOMMANDS:", "ARGUMENTS:"].contains($0) }).filter { $0.hasPrefix("-") }
            return options.compactMap { entry in
                guard let option = entry.range(of: #"--[a-z0-9-]+"#, options: .regularExpression).map({ String(entry[$0]) }) else { return nil }
                let values = listedValues(entry)
                return values.isEmpty ? nil : ListedOption(command: command, option: option, values: values)
            }
        }
    }

    /// What each subcommand needs beside the option to do real work on the scratch files. A
    /// command missing here fails the test, so a new subcommand with listed values gets a run.
    static func invocation(_ listed: ListedOption, value: String, folder: URL, refusing: Int) -> [String]? {
        let photo = folder.appendingPathComponent("photo.jpg").path
        let out = folder.appendingPathComponent("out-\(UUID().uuidString)").path
        let url = "http://127.0.0.1:\(refusing)/p/1.jpg"
        var extra: [String] = []
        // The background is for pad; the others would refuse it as a rule between options.
        if listed.option == "--background" { extra = ["--fit", "pad"] }
        // prepare's box options need the box.
        if listed.command == ["prepare"], ["--fit", "--background"].contains(listed.option) { extra = ["--size", "300"] + extra }
        // A transparent pad needs a format with alpha; prepare writes JPEG unless told.
        if listed.command == ["prepare"], value == "transparent" { extra += ["--format", "webp"] }
        switch listed.command {
        case ["thumbnail"]: return ["thumbnail", photo, "--out-dir", out] + extra + [listed.option, value]
        case ["prepare"]: return ["prepare", photo, "--out", out] + extra + [listed.option, value]
        case ["prefetch"]: return ["prefetch", "--in-process", url] + extra + [listed.option, value]
        case ["sign"]: return ["sign", url, "--key", "k"] + extra + [listed.option, value]
        case ["cache", "path"]: return ["cache", "path", url] + extra + [listed.option, value]
        case let command where command.first == "cache": return command + [listed.option, value]
        default: return nil
        }
    }

    @Test func valuesAreReadFromEachKindOfList() {
        #expect(Self.listedValues("--sort <sort> Order: size or age. (values: size, age, hits; default: recent)") == ["size", "age", "hits"])
        #expect(Self.listedValues("--fit <cover|contain|pad> cover: fill the box") == ["cover", "contain", "pad"])
        #expect(Self.listedValues("--background <RRGGBB|auto|blur> With pad") == ["auto", "blur"])
        #expect(Self.listedValues("--format <FORMAT> auto, jpeg, png, webp or avif (default auto).") == ["auto", "jpeg", "png", "webp", "avif"])
        #expect(Self.listedValues("--budget <budget> bytes, or with a unit (300KiB, 0.5MiB).").isEmpty)
        #expect(Self.listedValues("--preset <NAME> A preset: its size, fit, gravity or focus, trim.").isEmpty)
    }

    @Test func helpListsValuesForTheOptionsThatHaveThem() throws {
        let listed = try Self.listedOptions()
        // thumbnail's --format and --fit are enumerations: if none are found the parsing broke.
        #expect(listed.contains { $0.command == ["thumbnail"] && $0.option == "--format" && $0.values.contains("avif") },
                "\(listed)")
        #expect(listed.contains { $0.command == ["thumbnail"] && $0.option == "--fit" && $0.values.contains("pad") })
    }

    @Test func everyListedValueIsAccepted() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = PhonePhoto.synthetic(width: 640, height: 480, seed: 5)
        try Data(PhonePhoto.jpeg(upright: photo, orientation: .up)).write(to: folder.appendingPathComponent("photo.jpg"))
        let refusing = try RefusingPort()
        let cache = folder.appendingPathComponent("cache").path
        for listed in try Self.listedOptions() {
            for value in listed.values {
                guard let arguments = Self.invocation(listed, value: value, folder: folder, refusing: refusing.port) else {
                    Issue.record("\(listed) lists values but this test has no invocation for it")
                    continue
                }
                let result = try ChildProcess.run("/usr/bin/env", ["THUMBD_CACHE_DIR=\(cache)", CLI.executable] + arguments, timeoutSeconds: 120)
                let refused = result.stderrText.contains("is invalid for") || result.stderrText.contains("invalid value")
                #expect(result.status != 2 && result.status != 64 && !refused,
                        "\(listed) \(value): exit \(result.status)\n\(result.stderrText)")
                // The thumbnail is made for real: every listed value works, not just parses.
                if listed.command == ["thumbnail"] {
                    #expect(result.status == 0, "\(listed) \(value): exit \(result.status)\n\(result.stderrText)")
                }
            }
        }
    }

    /// The case from the issue: AVIF named by --format with an .avif output.
    @Test func avifByFormatAndExtension() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = folder.appendingPathComponent("photo.jpg")
        try Data(PhonePhoto.jpeg(upright: PhonePhoto.synthetic(width: 640, height: 480, seed: 6), orientation: .up)).write(to: photo)
        let out = folder.appendingPathComponent("t.avif")
        let result = try CLI.run(["thumbnail", photo.path, "-o", out.path, "--format", "avif"])
        #expect(result.status == 0, "\(result.stderrText)")
        let bytes = [UInt8]((try? Data(contentsOf: out)) ?? Data())
        // An AVIF file: an ISO box `ftyp` with the brand avif.
        #expect(bytes.count > 12 && String(decoding: bytes[4..<12], as: UTF8.self) == "ftypavif")
    }
}
