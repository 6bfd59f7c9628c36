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

    /// Arguments: size, output folder, "jpg" or "png", timed rounds, JPEG quality, files.
    /// Outputs are named like vipsthumbnail's `%s`: the input's name without its extension.
    static let script = #"""
import json, os, sys, time

def main():
    size, out_dir, ext, rounds, quality = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    files = sys.argv[6:]
    try:
        import PIL
        from PIL import Image, ImageOps
    except Exception as e:
        print(json.dumps({"error": "import PIL failed: %s" % e}))
        return 3
    lanczos = Image.Resampling.LANCZOS if hasattr(Image, "Resampling") else Image.LANCZOS

    def thumbnail(path, out):
        with Image.open(path) as im:
            im.draft("RGB", (size, size))
            if im.getexif().get(0x0112, 1) != 1:
                im = ImageOps.exif_transpose(im)
            if im.mode not in ("RGB", "RGBA", "L"):
                alpha = "A" in im.mode or "transparency" in im.info
                im = im.convert("RGBA" if alpha else "RGB")
            w, h = im.size
            side = min(w, h)
            left, top = (w - side) / 2.0, (h - side) / 2.0
            thumb = im.resize((size, size), lanczos, box=(left, top, left + side, top + side))
            if ext == "jpg":
                if thumb.mode not in ("RGB", "L"):
                    thumb = thumb.convert("RGB")
                thumb.save(out, "JPEG", quality=quality)
            else:
                thumb.save(out, "PNG", compress_level=1)

    outs = [os.path.join(out_dir, os.path.splitext(os.path.basename(f))[0] + "." + ext) for f in files]
    errors = {}
    def one_round(record_errors):
        times = []
        for i, (path, out) in enumerate(zip(files, outs)):
            start = time.perf_counter()
            try:
                thumbnail(path, out)
            except Exception as e:
                if record_errors:
                    errors[str(i)] = "%s: %s" % (type(e).__name__, e)
            times.append((time.perf_counter() - start) * 1000.0)
        return times

    one_round(True)  # warm-up, and the record of failures
    round_seconds, per_file_ms = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        times = one_round(False)
        round_seconds.append(time.perf_counter() - start)
        per_file_ms.append(times)
    print(json.dumps({"pillow": PIL.__version__, "python": sys.version.split()[0], "round_seconds": round_seconds,
                      "per_file_ms": per_file_ms, "errors": errors}))
    return 0

sys.exit(main())
"""#

    static var pythonInstalled: Bool { ChildProcess.isInstalled("python3") }

    /// Runs the script; nil output with a note when python3 or PIL is missing.
    func run(ext: String, rounds: Int) -> (output: Output?, note: String?) {
        guard Self.pythonInstalled else { return (nil, "python3 " + BenchPeers.installHint) }
        do {
            let folder = try scratch.folder("pillow-" + ext)
            let arguments = ["-c", Self.script, String(size), folder, ext, String(rounds), String(quality)] + inputs
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
