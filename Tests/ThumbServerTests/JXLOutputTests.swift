import Foundation
import ImageCodecs
import ImageCore
import ImageQuality
import TestOrigin
import Testing
import TestSupport

/// `format=jxl`: JPEG XL thumbnails when asked for by name, never from `format=auto`; what thumbd
/// writes, libjxl's own djxl reads.
struct JXLOutputTests {
    static let djxl = ["/usr/bin/djxl", "/usr/local/bin/djxl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("format=jxl answers image/jxl in the asked shape, a picture of the same thumbnail as the PNG; auto never picks it")
    func jxlByName() async throws {
        let photo = try ImageCodecs.encode(PhonePhoto.synthetic(width: 900, height: 700, seed: 11), .jpeg(quality: 92))
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(photo)])
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let url = origin.url("/p.jpg")
        let jxl = try await daemon.get(daemon.thumbnailPath(url, "size=300x400&format=jxl"))
        #expect(jxl.status == 200 && jxl.header("content-type") == "image/jxl", "\(jxl.status) \(jxl.header("content-type") ?? "-")")
        #expect(try ImageCodecs.format(of: jxl.body) == .jxl)
        let pixels = try ImageCodecs.decode(jxl.body).pixels
        #expect((pixels.width, pixels.height) == (300, 400))
        // The route's answer is the encoder's (its fidelity on real photos is JXLCodecTests'): a
        // picture of the thumbnail, not a swapped channel or a wrong crop. On this noise-heavy
        // synthetic picture both lossy formats lose fine grain: JPEG XL 0.84, JPEG 0.88 when measured.
        let png = try ImageCodecs.decode(try await daemon.get(daemon.thumbnailPath(url, "size=300x400&format=png")).body).pixels
        let jpeg = try ImageCodecs.decode(try await daemon.get(daemon.thumbnailPath(url, "size=300x400&format=jpeg")).body).pixels
        let (ssim, jpegSSIM) = (SSIM.compare(pixels, png), SSIM.compare(jpeg, png))
        print("format=jxl: SSIM \(ssim) against the lossless thumbnail; the JPEG's \(jpegSSIM); \(jxl.body.count) bytes")
        #expect(ssim >= 0.8 && ssim >= jpegSSIM - 0.1, "JPEG XL SSIM \(ssim), JPEG's \(jpegSSIM)")
        let auto = try await daemon.get(daemon.thumbnailPath(url, "size=300x400"), headers: [("Accept", "image/jxl,image/avif,image/webp,*/*")])
        #expect(auto.header("content-type") == "image/avif")
        if let djxl = Self.djxl {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-jxl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("t.jxl")
            try Data(jxl.body).write(to: file)
            try Pillow.runTool(djxl, [file.path, folder.appendingPathComponent("t.png").path, "--quiet"])
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("t.png").path))
        } else {
            try Requirement.unmet("djxl (libjxl-tools) is missing: the read-back by libjxl's own decoder cannot run")
        }
        try await daemon.stop()
        try await origin.shutdown()
    }
}
