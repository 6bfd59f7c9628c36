import Foundation
import TestSupport
import ImageCore
import Testing
import TIFFCodec

/// Broken TIFFs: every refusal has a stable code, nothing crashes or hangs, libtiff prints nothing.
@Suite("TIFF hostile input", .serialized)
struct TIFFHostileTests {
    static let dataCodes: Set<ImageError.Code> = [.corruptImage, .truncatedImage, .unsupportedFormat, .pixelLimitExceeded]

    /// Files of every reading path: LZW strips, JPEG strips, tiles, separate planes, sub-byte
    /// palette, CCITT fax, YCbCr through libtiff's RGBA reader, BigTIFF, 16-bit with a predictor.
    static let mutated = ["rgb8-lzw.tif", "ycbcr-jpeg420-strips.tif", "tiled-rgb8.tif", "separate-tiled-rgba8.tif", "palette4.tif",
                          "bilevel-group4.tif", "ycbcr420-deflate.tif", "bigtiff-rgb8.tif", "rgb16-deflate-predictor-bigendian.tif",
                          "cmyk-alpha8.tif"]

    /// Slowest decode allowed for a file of a few kilobytes, however damaged.
    static let slowest = Duration.seconds(1)

    /// Decodes, and says what happened: nil for a decoded image (checked for consistency), else the error.
    static func attempt(_ data: [UInt8]) -> (error: ImageError?, time: Duration) {
        let clock = ThreadCPUClock()
        let start = clock.now
        do {
            let decoded = try TIFFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
            #expect(decoded.pixels.pixels.count == decoded.pixels.width * decoded.pixels.height * 4)
            return (nil, clock.now - start)
        } catch {
            #expect(dataCodes.contains(error.code), "\(error)")
            #expect(!error.message.isEmpty)
            return (error, clock.now - start)
        }
    }

    @Test("a file cut anywhere is refused, as truncated_image", arguments: mutated)
    func truncated(_ name: String) throws {
        let data = try TIFFTestFiles.bytes(name)
        var codes: [ImageError.Code: Int] = [:]
        for length in Array(0..<min(64, data.count)) + Array(stride(from: 64, to: data.count, by: 5)) {
            let (error, time) = Self.attempt(Array(data.prefix(length)))
            #expect(time < Self.slowest)
            guard let error else {
                Issue.record("\(name) cut at \(length) of \(data.count) decoded")
                continue
            }
            codes[error.code, default: 0] += 1
            // Empty is corrupt; anything longer lost bytes the file refers to.
            #expect(error.code == (length == 0 ? .corruptImage : .truncatedImage), "\(name) cut at \(length): \(error)")
        }
        print("TIFF \(name) cut at \(codes.values.reduce(0, +)) lengths: \(codes.map { "\($0.key.rawValue) \($0.value)" }.sorted())")
    }

    /// Every field of the first directory's entries (count and value) set to numbers a writer
    /// would never use: huge, negative as signed, zero.
    @Test("directory fields set to hostile values are refused or read, never a crash", arguments: mutated.filter { $0 != "bigtiff-rgb8.tif" })
    func hostileFields(_ name: String) throws {
        let data = try TIFFTestFiles.bytes(name)
        let (littleEndian, entries) = HandTIFF.entryFields(data)
        let values: [UInt32] = [0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0000, 0x0001_0000, 0xFFFF, 0x4000_0000, 0]
        var refused = 0, decoded = 0
        for entry in entries {
            for field in [entry.count, entry.value] {
                for value in values {
                    var damaged = data
                    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
                    damaged.replaceSubrange(field..<field + 4, with: littleEndian ? bytes : bytes.reversed())
                    let (error, time) = Self.attempt(damaged)
                    #expect(time < Self.slowest, "\(name) tag \(entry.tag) field at \(field) = \(value): \(time)")
                    if error == nil { decoded += 1 } else { refused += 1 }
                }
            }
        }
        print("TIFF \(name) with hostile directory fields: \(refused) refused, \(decoded) decoded")
    }

    /// Random damage anywhere, 250 times a file (2,500 in all); libtiff's process-wide stderr must stay
    /// silent throughout (it is captured, checked and then handed on, so other suites lose nothing).
    @Test("2,500 seeded mutations: every decode returns or throws an ImageError quickly, and libtiff prints nothing")
    func mutations() throws {
        var random = SeededRandom(seed: 0x7469_6666)
        var refusals: [ImageError.Code: Int] = [:]
        var libtiffMessages: Set<String> = []
        var slowest = Duration.zero
        let files = try Self.mutated.map { try TIFFTestFiles.bytes($0) }
        let captured = StandardErrorCapture.capture {
            for data in files {
                for _ in 0..<250 {
                    var damaged = data
                    switch random.below(4) {
                    case 0:  // a few flipped bits
                        for _ in 0..<(1 + random.below(4)) { damaged[random.below(damaged.count)] ^= UInt8(1 << random.below(8)) }
                    case 1:  // a few random bytes
                        for _ in 0..<(1 + random.below(8)) { damaged[random.below(damaged.count)] = UInt8(random.below(256)) }
                    case 2:  // a run of 0xFF (huge counts and offsets) somewhere in the first 512 bytes
                        let start = random.below(min(512, damaged.count))
                        for i in start..<min(damaged.count, start + 1 + random.below(6)) { damaged[i] = 0xFF }
                    default:  // damage, then cut
                        damaged[random.below(damaged.count)] ^= 0xFF
                        damaged = Array(damaged.prefix(8 + random.below(damaged.count - 8)))
                    }
                    let (error, time) = Self.attempt(damaged)
                    slowest = max(slowest, time)
                    if let error {
                        refusals[error.code, default: 0] += 1
                        // libtiff's own words, kept in the error between the last parentheses.
                        if let open = error.message.lastIndex(of: "("), error.message.hasSuffix(")") {
                            libtiffMessages.insert(String(error.message[error.message.index(after: open)..<error.message.index(before: error.message.endIndex)]))
                        }
                    }
                }
            }
        }
        print("TIFF mutations: refusals \(refusals.map { "\($0.key.rawValue) \($0.value)" }.sorted()), slowest \(slowest), \(libtiffMessages.count) distinct libtiff messages")
        #expect(slowest < Self.slowest)
        #expect(libtiffMessages.count > 10, "too few libtiff messages to show its output was silenced")
        let printed = libtiffMessages.filter { $0.count > 12 && captured.contains($0) }
        #expect(printed.isEmpty, "libtiff printed \(printed.count) of its messages to stderr, e.g. \(printed.sorted().prefix(3))")
        let warned = captured.contains("Warning, ")
        #expect(!warned, "libtiff printed a warning to stderr")
    }
}

/// What the process writes to file descriptor 2 while `body` runs. The capture is handed on to the
/// real stderr afterwards, so output of anything running beside is delayed, never lost.
enum StandardErrorCapture {
    static func capture(_ body: () -> Void) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tiff-stderr-\(UUID().uuidString)").path
        fflush(nil)
        let saved = dup(2)
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard saved >= 0, file >= 0 else {
            body()
            return ""
        }
        dup2(file, 2)
        close(file)
        body()
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: path)
        if !text.isEmpty { FileHandle.standardError.write(Data(text.utf8)) }
        return text
    }
}
