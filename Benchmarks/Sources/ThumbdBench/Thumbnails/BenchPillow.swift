import ChildProcess
import Foundation

/// Pillow, the usual way: `draft` (JPEG DCT scaling to at least size x size), EXIF transpose,
/// centre square, LANCZOS resize, save. Timed inside Python around the loop only, so interpreter
/// start-up and imports are not counted.
struct BenchPillow: Sendable {
    var size: Int
    var quality: Int
    var scratch: BenchScratch
    var inputs: [String]

    /// What the script prints (one JSON object on stdout).
    struct Output: Decodable {
        var error: String?
        var pillow: String?
        var python: String?
        var roundSeconds: [Double]?
        var perFileMs: [[Double]]?
        var errors: [String: String]?
    }

    static var pythonInstalled: Bool { ChildProcess.isInstalled("python3") }

    /// Runs the script; nil output with a note when python3 or PIL is missing.
    func run(ext: String, rounds: Int) -> (output: Output?, note: String?) {
        guard Self.pythonInstalled else { return (nil, "python3 " + BenchPeers.installHint) }
        do {
            let folder = try scratch.folder("pillow-" + ext)
            // Scripts/pillow_thumbnails.py; its outputs are named like vipsthumbnail's `%s`.
            let script = try BenchScript.pillowThumbnails.write(into: scratch.root)
            let arguments = [script, String(size), folder, ext, String(rounds), String(quality)] + inputs
            let result = try ChildProcess.run("python3", arguments, timeoutSeconds: BenchPeers.timeoutSeconds)
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            guard let line = result.stdoutText.split(separator: "\n").last,
                  let output = try? decoder.decode(Output.self, from: Data(line.utf8)) else {
                let why = result.stderrText.split(separator: "\n").last.map(String.init) ?? "exit status \(result.status)"
                return (nil, "the Pillow script failed: \(why)")
            }
            if let error = output.error { return (nil, "\(error): " + BenchPeers.installHint) }
            return (output, nil)
        } catch {
            return (nil, "could not run python3: \(error)")
        }
    }

    /// A first, untimed run (a warm-up pass only): whether Pillow is there, its version, and the files
    /// it cannot do.
    func probe(files: [BenchFile], into result: inout BenchResults.PeerResult,
               errors: inout [BenchResults.FileError]) -> (pillow: String?, python: String?) {
        let (output, note) = run(ext: "jpg", rounds: 0)
        result.note = note
        guard let output else { return (nil, nil) }
        result.installed = true
        result.command = "python3: Image.open, draft('RGB', (\(size), \(size))), exif_transpose, centre square, "
            + "resize LANCZOS, save JPEG q\(quality) (loop timed in Python)"
        for (key, message) in (output.errors ?? [:]).sorted(by: { $0.key < $1.key }) {
            let name = Int(key).flatMap { files.indices.contains($0) ? files[$0].name : nil } ?? key
            errors.append(.init(tool: "Pillow", file: name, code: "peer_failed", message: message))
        }
        return (output.pillow, output.python)
    }

    /// One timed round: a fresh interpreter, one warm-up pass, then the timed pass.
    func round() throws -> BenchRound {
        let (output, note) = run(ext: "jpg", rounds: 1)
        guard let seconds = output?.roundSeconds?.first, let perFile = output?.perFileMs?.first else {
            throw ValidationErrorMessage(note ?? "the Pillow script printed no timing")
        }
        return BenchRound(seconds: seconds, perImageMs: perFile)
    }

    /// Lossless outputs for the SSIM comparison (one pass, not timed). Returns the folder.
    func png() -> String? {
        guard run(ext: "png", rounds: 0).output != nil else { return nil }
        return (scratch.root as NSString).appendingPathComponent("pillow-png")
    }
}
