import CJPEGBridge
import Foundation
import ImageCore
@testable import JPEGCodec
import Testing
import TestSupport

/// The bridge's own entropy decoder for a progressive file's AC scans writes the coefficients
/// libjpeg-turbo's would: the same pixels at every scale, for every progressive file at hand, for
/// restart intervals, and for corrupt data (the same pixels, or the same refusal).
struct JPEGProgressiveACTests {
    static let scales = [0.125, 0.25, 0.5, 1].map { DecodeScaleHint(minimumScale: $0) }
    static let jpegtran = "/usr/bin/jpegtran"

    /// The decode with the bridge's AC decoder and with libjpeg's, compared; `cut` as the thumbnailer decodes.
    static func expectSame(_ data: [UInt8], _ name: String, scale: DecodeScaleHint, cut: Bool) {
        func decode(_ own: Bool) -> Result<DecodedImage, ImageError> {
            Result { () throws(ImageError) -> DecodedImage in
                try JPEGDecoder.decode(data, limits: DecodeLimits(), scale: scale, keepingCMYK: false,
                                       cuttingScans: cut, ownACDecoder: own)
            }
        }
        switch (decode(true), decode(false)) {
        case let (.success(ours), .success(theirs)):
            let same = ours.pixels.width == theirs.pixels.width && ours.pixels.height == theirs.pixels.height
                && ours.pixels.pixels == theirs.pixels.pixels
            #expect(same, "\(name) at \(scale.minimumScale): \(differences(ours.pixels, theirs.pixels))")
        case let (.failure(ours), .failure(theirs)):
            #expect(ours.description == theirs.description, "\(name) at \(scale.minimumScale): refused as \(ours), libjpeg's as \(theirs)")
        case let (ours, theirs):
            Issue.record("\(name) at \(scale.minimumScale): \(ours) with the own AC decoder, \(theirs) with libjpeg's")
        }
    }

    /// How many AC scans the bridge's decoder took, decoding the whole file at full size.
    static func ownScans(_ data: [UInt8], own: Bool = true) throws -> Int {
        try data.withUnsafeBufferPointer { source in
            let decoder = try #require(thumbd_jpeg_open(source.baseAddress, source.count, 1 << 30))
            defer { thumbd_jpeg_close(decoder) }
            var header = thumbd_jpeg_header()
            var width: Int32 = 0, height: Int32 = 0
            try #require(thumbd_jpeg_read_header(decoder, &header) == 0 && thumbd_jpeg_output_size(decoder, 8, &width, &height) == 0)
            _ = thumbd_jpeg_set_own_ac_decoder(decoder, own ? 1 : 0)
            var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
            let status = pixels.withUnsafeMutableBufferPointer { thumbd_jpeg_decode(decoder, $0.baseAddress, Int(width) * 4, $0.count) }
            try #require(status == 0, "\(String(cString: thumbd_jpeg_message(decoder)))")
            return Int(thumbd_jpeg_own_ac_scans(decoder))
        }
    }

    /// The corpus's progressive JPEGs as they are (`remade`: false), or its baseline photos made
    /// progressive by our encoder from their 1/4 decode (libjpeg's default script: spectral selection
    /// and successive approximation).
    static func progressiveFiles(remade: Bool) throws -> [(String, [UInt8])] {
        try TestPaths.corpusJPEGs().compactMap { url -> (String, [UInt8])? in
            let data = try TestPaths.bytes(url)
            guard let structure = try? JPEGDecoder.structure(of: data) else { return nil }
            if !remade { return structure.coding == .progressive ? (url.lastPathComponent, data) : nil }
            guard structure.coding != .progressive, url.path.contains("/photos/"),
                  let pixels = try? JPEGDecoder.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.25), keepingCMYK: false).pixels
            else { return nil }
            return ("\(url.lastPathComponent), made progressive", try JPEGCodec.encode(pixels, quality: 92, progressive: true))
        }
    }

    @Test("Every progressive JPEG at hand: the own AC decoder's pixels are libjpeg's at 1/8, 1/4, 1/2 and 1, whole or cut",
          .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
    func corpus() throws {
        let asTheyAre = try Self.progressiveFiles(remade: false)
        let files = try asTheyAre + Self.progressiveFiles(remade: true)
        #expect(files.count >= 30, "only \(files.count) progressive files")
        for (name, data) in files {
            for scale in Self.scales {
                Self.expectSame(data, name, scale: scale, cut: true)
                Self.expectSame(data, name, scale: scale, cut: false)
            }
        }
        // The comparison means something only if the own decoder ran: every progressive file has AC scans.
        let (name, data) = try #require(asTheyAre.first)
        #expect(try Self.ownScans(data) > 0, "\(name): no AC scan went through the own decoder")
        #expect(try Self.ownScans(data, own: false) == 0, "\(name): the own decoder ran while turned off")
    }

    @Test("Synthetic photos, grey and colour, odd sizes: the same pixels; baseline files never reach the own decoder")
    func synthetic() throws {
        for (width, height) in [(1, 1), (9, 17), (301, 203), (640, 7)] {
            var image = SyntheticImage.gradient(width: width, height: height)
            var noise = SeededRandom(seed: UInt64(width * 1000 + height))
            for i in stride(from: 0, to: image.pixels.count, by: 4) { image.pixels[i + 1] = UInt8(truncatingIfNeeded: noise.next()) }
            let progressive = try JPEGCodec.encode(image, quality: 95, progressive: true)
            let baseline = try JPEGCodec.encode(image, quality: 95, progressive: false)
            for scale in Self.scales { Self.expectSame(progressive, "\(width)x\(height)", scale: scale, cut: false) }
            #expect(try Self.ownScans(progressive) > 0, "\(width)x\(height): no AC scan went through the own decoder")
            #expect(try Self.ownScans(baseline) == 0, "\(width)x\(height): a baseline file reached the own decoder")
        }
    }

    @Test("Restart intervals (jpegtran -progressive -restart): every interval resets the run as libjpeg's does",
          .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)),
          .requires(FileManager.default.isExecutableFile(atPath: jpegtran), "jpegtran is not installed (libjpeg-turbo-progs; make test installs it)"))
    func restartIntervals() throws {
        let folder = try Pillow.temporaryFolder("progressive-restarts")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = TestPaths.corpusJPEGs().filter { $0.path.contains("/photos/") }.prefix(4)
        #expect(photos.count == 4)
        for photo in photos {
            for (label, arguments) in [("1 MCU", ["-restart", "1"]), ("7 blocks", ["-restart", "7B"]), ("grey, 3 MCUs", ["-restart", "3", "-grayscale"])] {
                let output = folder.appendingPathComponent("\(photo.deletingPathExtension().lastPathComponent)-\(label.filter(\.isLetter)).jpg")
                try Pillow.runTool(Self.jpegtran, ["-progressive"] + arguments + ["-outfile", output.path, photo.path])
                let data = try TestPaths.bytes(output)
                for scale in Self.scales { Self.expectSame(data, "\(photo.lastPathComponent), restart every \(label)", scale: scale, cut: false) }
            }
        }
    }

    @Test("Corrupt data: seeded flips, fill bytes and cuts in the scans give libjpeg's pixels, or its refusal",
          .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
    func corruptData() throws {
        var generator = SeededRandom(seed: 45)
        let files = try Self.progressiveFiles(remade: false).filter { $0.1.count < 800_000 }.prefix(6)
        #expect(files.count >= 4, "only \(files.count) small progressive files")
        for (name, original) in files {
            for round in 0..<25 {
                var data = original
                for _ in 0..<(1 + generator.index(4)) {
                    let at = data.count / 10 + generator.index(data.count - 2 - data.count / 10)
                    switch generator.index(3) {
                    case 0: data[at] ^= UInt8(1) << UInt8(generator.index(8))
                    case 1: data[at] = UInt8(generator.index(256))
                    default: data[at] = 0xFF
                    }
                }
                let scale = Self.scales[round % Self.scales.count]
                Self.expectSame(data, "\(name), corruption \(round)", scale: scale, cut: round % 2 == 0)
            }
        }
    }
}
