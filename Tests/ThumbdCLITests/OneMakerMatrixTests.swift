import DaemonTestSupport
import Foundation
import ImageCodecs
import ImageCore
import ImageQuality
import TestOrigin
import Testing
import TestSupport

/// One thumbnail maker behind every door: for each source, fit, background, format and byte cap,
/// `thumbd thumbnail` writes what the daemon answers a client whose Accept is `*/*`.
struct OneMakerMatrixTests {
    struct Case: CustomStringConvertible {
        var fit: String
        var background: String?
        var format: String
        var maxBytes: Int?

        var description: String {
            "fit=\(fit)" + (background.map { " bg=\($0)" } ?? "") + " format=\(format)" + (maxBytes.map { " max_bytes=\($0)" } ?? "")
        }

        var query: String {
            "size=160x120&fit=\(fit)&format=\(format)" + (background.map { "&bg=\($0)" } ?? "") + (maxBytes.map { "&max_bytes=\($0)" } ?? "")
        }

        var options: [String] {
            ["--size", "160x120", "--fit", fit] + (background.map { ["--background", $0] } ?? []) + (maxBytes.map { ["--max-bytes", String($0)] } ?? [])
        }
    }

    static let cases: [Case] = {
        let shapes: [(String, String?)] = [("cover", nil), ("contain", nil), ("pad", "ffffff"), ("pad", "transparent"), ("pad", "auto"), ("pad", "blur")]
        return shapes.flatMap { fit, background in
            ["auto", "jpeg", "png", "webp", "avif", "jxl"].flatMap { format in
                [nil, 9000].map { Case(fit: fit, background: background, format: format, maxBytes: $0) }
            }
        }
    }()

    static let badVariant = "a variant refused as asked"

    /// What one door made: the file's bytes, or the error code it refused with.
    enum Made: Equatable {
        case image([UInt8])
        case refused(String)
    }

    @Test("the CLI's file and the daemon's answer (Accept */*) agree in format, alpha, size, pixels and bytes, across the matrix")
    func cliAndDaemonMakeTheSameThumbnail() async throws {
        let opaque = try ImageCodecs.encode(PhonePhoto.synthetic(width: 640, height: 480, seed: 5), .jpeg(quality: 90))
        let sources = ["opaque.jpg": opaque, "cutout.png": Images.cutOutPNG]
        let origin = try await TestOrigin.start(routes: Dictionary(uniqueKeysWithValues: sources.map { ("/" + $0.key, .image($0.value)) }))
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, bytes) in sources { try Data(bytes).write(to: folder.appendingPathComponent(name)) }

        var compared = 0, refusedAlike = 0
        for (name, _) in sources.sorted(by: { $0.key < $1.key }) {
            for matrixCase in Self.cases {
                let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/\(name)"), matrixCase.query), headers: [("Accept", "*/*")])
                let fromDaemon: Made = switch reply.status {
                case 200: .image(reply.body)
                // A variant no thumbnail can have: the API's 400, the command line's usage error.
                case 400: .refused(Self.badVariant)
                default: .refused(reply.problemCode ?? "status \(reply.status)")
                }
                let fromCLI = try Self.runCLI(folder.appendingPathComponent(name).path, matrixCase, in: folder)
                switch (fromDaemon, fromCLI) {
                case (.image(let served), .image(let written)):
                    try Self.expectSame(served, written, "\(name) \(matrixCase)")
                    compared += 1
                case (.refused(let served), .refused(let written)):
                    #expect(served == written, "\(name) \(matrixCase): the daemon refused with \(served), the CLI with \(written)")
                    refusedAlike += 1
                default:
                    Issue.record("\(name) \(matrixCase): the daemon made \(Self.summary(fromDaemon)), the CLI \(Self.summary(fromCLI))")
                }
            }
        }
        // Most cases make a thumbnail; the rest (a transparent band in JPEG, a cap PNG cannot meet) are refused by both.
        #expect(compared >= 100 && refusedAlike >= 4, "\(compared) compared, \(refusedAlike) refused by both")
        try await daemon.stop()
        try await origin.shutdown()
    }

    /// Runs `thumbd thumbnail` as a user would: an explicit format through `-o`'s extension (a
    /// format and nothing more), `auto` through `--out-dir`, which names the file by what it became.
    static func runCLI(_ input: String, _ matrixCase: Case, in folder: URL) throws -> Made {
        let output = folder.appendingPathComponent("out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        let destination = matrixCase.format == "auto"
            ? ["--out-dir", output.path]
            : ["-o", output.appendingPathComponent("thumb." + (matrixCase.format == "jpeg" ? "jpg" : matrixCase.format)).path]
        let result = try CLI.run(["thumbnail", input] + destination + matrixCase.options)
        guard result.status == 0 else {
            if result.status == 2 { return .refused(badVariant) }
            return .refused(CLI.errorCodes(result.stderrText).values.first ?? "exit \(result.status): \(result.stderrText)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: output.path)
        guard files.count == 1 else { return .refused("\(files.count) files written: \(files)") }
        return .image([UInt8](try Data(contentsOf: output.appendingPathComponent(files[0]))))
    }

    static func expectSame(_ served: [UInt8], _ written: [UInt8], _ what: String) throws {
        #expect(SniffedFormat.sniff(served) == SniffedFormat.sniff(written), "\(what): format")
        let a = try ImageCodecs.decode(served).pixels, b = try ImageCodecs.decode(written).pixels
        #expect(a.hasAlpha == b.hasAlpha, "\(what): alpha \(a.hasAlpha) against \(b.hasAlpha)")
        #expect((a.width, a.height) == (b.width, b.height), "\(what): \(a.width)x\(a.height) against \(b.width)x\(b.height)")
        guard (a.width, a.height) == (b.width, b.height) else { return }
        let ssim = SSIM.compare(a, b)
        #expect(ssim >= 0.99, "\(what): SSIM \(ssim)")
        #expect(abs(served.count - written.count) * 50 <= max(served.count, written.count), "\(what): \(served.count) against \(written.count) bytes")
    }

    static func summary(_ made: Made) -> String {
        switch made {
        case .image(let bytes): "a \(bytes.count)-byte \(SniffedFormat.sniff(bytes))"
        case .refused(let code): "a refusal (\(code))"
        }
    }
}
