import Foundation
import ImageCore
import ImageOps
import ImageQuality
import Testing

/// Hand-run measurements, not assertions about speed. Skipped unless THUMBD_OPS_BENCH=1; run in
/// release mode:
///
///     THUMBD_OPS_BENCH=1 swift test -c release --scratch-path .build-ops --filter ResizeBenchmark
///
/// `prereductionQuality` also reads photos converted to PAM (RGB or RGBA, 8-bit) from the folder in
/// THUMBD_OPS_PHOTOS, e.g. made from shared/corpora/photos with Pillow and numpy:
///
///     python3 -c 'import sys,numpy as np; from PIL import Image
///     for f in sys.argv[2:]:
///         a=np.asarray(Image.open(f).convert("RGB")); h,w,_=a.shape
///         open(sys.argv[1]+"/"+f.rsplit("/",1)[-1]+".pam","wb").write(
///             f"P7\nWIDTH {w}\nHEIGHT {h}\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n".encode()+a.tobytes())' OUT_DIR photos/*
@Suite(.enabled(if: ProcessInfo.processInfo.environment["THUMBD_OPS_BENCH"] == "1", "set THUMBD_OPS_BENCH=1 to measure"))
struct ResizeBenchmark {
    static let environment = ProcessInfo.processInfo.environment

    /// Runs `body` `iterations` times (THUMBD_OPS_BENCH_ITERATIONS overrides) and prints the fastest
    /// and the median time; THUMBD_OPS_BENCH_CASE=text runs only the cases whose label contains it.
    static func measure(_ label: String, iterations: Int, _ body: () -> PixelBuffer) {
        if let only = environment["THUMBD_OPS_BENCH_CASE"], !label.contains(only) { return }
        let iterations = environment["THUMBD_OPS_BENCH_ITERATIONS"].flatMap(Int.init) ?? iterations
        let clock = ContinuousClock()
        var samples: [Double] = []
        var keep = 0
        for _ in 0..<iterations {
            let start = clock.now
            let out = body()
            let elapsed = clock.now - start
            keep &+= Int(out.pixels[out.pixels.count / 2])
            samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        samples.sort()
        let line = label.padding(toLength: 46, withPad: " ", startingAt: 0)
            + String(format: "min %7.2f ms   median %7.2f ms", samples[0], samples[samples.count / 2])
        print(line, keep == -1 ? "" : "")
    }

    static func cover(_ w: Int, _ h: Int) -> SourceRegion {
        let side = Double(min(w, h))
        return SourceRegion(x: (Double(w) - side) / 2, y: (Double(h) - side) / 2, width: side, height: side)
    }

    @Test func timings() {
        for (w, h) in [(1000, 750), (4000, 3000)] {
            for alpha in [false, true] {
                if let only = Self.environment["THUMBD_OPS_BENCH_CASE"], !only.hasPrefix("\(w)x") { continue }
                let image = TestImages.photoLike(width: w, height: h, hasAlpha: alpha)
                let iterations = w > 2000 ? 15 : 60
                let name = "\(w)x\(h)\(alpha ? " rgba" : " opaque") -> 200x200 cover"
                Self.measure(name, iterations: iterations) {
                    Resampler.resize(image, region: Self.cover(w, h), width: 200, height: 200)
                }
                if w > 2000 {
                    Self.measure(name + " (pure)", iterations: 5) {
                        Resampler.resize(image, region: Self.cover(w, h), width: 200, height: 200, prereduction: .none)
                    }
                }
            }
        }
        if let only = Self.environment["THUMBD_OPS_BENCH_CASE"], !only.contains("oriented") { return }
        let image = TestImages.photoLike(width: 4000, height: 3000)
        for o in [Orientation.right, .down] {
            Self.measure("4000x3000 oriented(\(o))", iterations: 10) { image.oriented(o) }
        }
        let region = Self.cover(3000, 4000)
        Self.measure("4000x3000 oriented(right) then resize 200x200", iterations: 10) {
            Resampler.resize(image.oriented(.right), region: region, width: 200, height: 200)
        }
        Self.measure("4000x3000 resize(orientation: .right) 200x200", iterations: 10) {
            Resampler.resize(image, orientation: .right, region: region, width: 200, height: 200)
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["THUMBD_OPS_PHOTOS"] != nil))
    func prereductionQuality() throws {
        let folder = URL(fileURLWithPath: ProcessInfo.processInfo.environment["THUMBD_OPS_PHOTOS"]!)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pam") }.sorted()
        let modes: [Resampler.Prereduction] = [.automatic, .box(lanczosFactor: 2)]
        var worst = [Double](repeating: 1, count: modes.count)
        // THUMBD_OPS_WRITE=folder also saves each photo's 200x200 cover thumbnail there (PAM), for
        // comparing with other resizers outside.
        let writeFolder = Self.environment["THUMBD_OPS_WRITE"].map { URL(fileURLWithPath: $0) }
        for file in files {
            let image = try TestImages.readPAM(folder.appendingPathComponent(file))
            if let writeFolder {
                let thumbnail = Resampler.resize(image, region: Self.cover(image.width, image.height), width: 200, height: 200)
                try TestImages.writePAM(thumbnail, to: writeFolder.appendingPathComponent(file))
            }
            for size in [200, 100, 64] {
                for region in [Self.cover(image.width, image.height),
                               SourceRegion(x: 0, y: 0, width: Double(image.width), height: Double(image.height))] {
                    let aspect = region.width / region.height
                    let (w, h) = aspect >= 1 ? (size, max(1, Int((Double(size) / aspect).rounded())))
                                             : (max(1, Int((Double(size) * aspect).rounded())), size)
                    guard region.width / Double(w) >= 6 || region.height / Double(h) >= 6 else { continue }
                    let pure = Resampler.resize(image, region: region, width: w, height: h, prereduction: .none)
                    var line = String(format: "%@ %dx%d -> %dx%d  SSIM luma/rgb:", file, Int(region.width), Int(region.height), w, h)
                    for (i, mode) in modes.enumerated() {
                        let fast = Resampler.resize(image, region: region, width: w, height: h, prereduction: mode)
                        let luma = SSIM.compare(pure, fast)
                        let rgb = SSIM.compare(pure, fast, channels: .rgb)
                        worst[i] = min(worst[i], luma, rgb)
                        line += String(format: "  %@ %.5f %.5f", "\(mode)", luma, rgb)
                    }
                    print(line)
                }
            }
        }
        for (i, mode) in modes.enumerated() {
            print(String(format: "worst SSIM(pure, %@) = %.5f", "\(mode)", worst[i]))
        }
    }
}
