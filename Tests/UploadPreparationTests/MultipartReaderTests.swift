import NIOCore
import Testing
import UploadForms
import UploadPreparation

/// The multipart reader on what real senders and hostile ones write, cut into pieces anywhere.
struct MultipartReaderTests {
    static let limits = UploadFormLimits(maxImages: 5, maxImageBytes: 1 << 16, maxRequestBytes: 1 << 20)
    static let contentType = "multipart/form-data; boundary=XyZ-42"

    /// Content that looks like the start of a delimiter: a CR, a CRLF, `--`, and the boundary
    /// without its line start, each of which a reader must keep as content.
    static let trickyImage: [UInt8] = Array("\r\n-\r\n--XyZ-4\r--XyZ-42 --XyZ\r\n\r".utf8) + [0x00, 0xFF, 0x0D]

    /// A preamble, padding after a boundary, a folded header, a UTF-8 file name and an epilogue.
    static let form: [UInt8] = {
        let head: [String] = [
            "This is a preamble a reader ignores.\r\n",
            "--XyZ-42  \t\r\n",
            "Content-Disposition: form-data; name=\"params\"\r\n",
            "Content-Type: application/json\r\n\r\n",
            "{\"name\":\"Lamp\"}\r\n",
            "--XyZ-42\r\n",
            "Content-Disposition: form-data;\r\n name=\"images\"; filename=\"lampe-café.jpg\"\r\n",
            "Content-Type: image/jpeg\r\n\r\n",
        ]
        let tail: [String] = [
            "\r\n--XyZ-42\r\n",
            "content-disposition: form-data; name=\"images\"; filename=\"empty.jpg\"\r\n\r\n",
            "\r\n--XyZ-42--\r\n",
            "An epilogue, ignored too.",
        ]
        return utf8(head) + trickyImage + utf8(tail)
    }()

    static func utf8(_ lines: [String]) -> [UInt8] { Array(lines.joined().utf8) }

    /// Each of these once stopped the daemon or could be misread.
    static let malformed: [[UInt8]] = {
        // A non-ASCII byte in a part's header name (the multipart fuzz target's first find).
        var nonASCIIName = utf8(["--XyZ-42\r\nContent-Disposit"])
        nonASCIIName += [0x95, 0x90]
        nonASCIIName += utf8(["n: form-data; name=\"images\"\r\n\r\nx\r\n--XyZ-42--\r\n"])
        var endlessHeader = utf8(["--XyZ-42\r\nX-Long: "])
        endlessHeader += [UInt8](repeating: UInt8(ascii: "a"), count: 20_000)
        return [
            nonASCIIName,
            utf8(["--XyZ-42\r\n: no name\r\n\r\nx\r\n--XyZ-42--\r\n"]),
            utf8(["--XyZ-42\r\nno colon here\r\n\r\nx\r\n--XyZ-42--\r\n"]),
            utf8(["--XyZ-42garbage\r\n\r\n"]),
            utf8(["--XyZ-42\r\nContent-Disposition: form-data; name=\"images\"\r\n\r\ncut short"]),
            utf8(["--XyZ-42\r\nContent-Disposition: form-data; name=\"images\"\r\n\r\nno close\r\n--XyZ-42"]),
            endlessHeader,
        ]
    }()

    static func read(_ body: [UInt8], pieces: [Int]) throws -> UploadForm {
        let reader = try UploadFormReader(contentType: contentType, limits: limits)
        var start = 0
        for end in pieces + [body.count] where end > start {
            try reader.consume(ByteBuffer(bytes: body[start..<end]))
            start = end
        }
        return try reader.finish()
    }

    @Test func readsTheSameFormWhereverTheBodyIsCut() throws {
        let whole = try Self.read(Self.form, pieces: [])
        #expect(whole.params == Array("{\"name\":\"Lamp\"}".utf8))
        #expect(whole.images.map(\.name) == ["lampe-café.jpg", "empty.jpg"])
        #expect(whole.images.first?.bytes == Self.trickyImage)
        #expect(whole.images.last?.bytes == [])
        for cut in 1..<Self.form.count {
            let form = try Self.read(Self.form, pieces: [cut])
            #expect(form.images.map(\.bytes) == whole.images.map(\.bytes), "cut at \(cut)")
            #expect(form.params == whole.params, "cut at \(cut)")
        }
        let byteByByte = try Self.read(Self.form, pieces: Array(1..<Self.form.count))
        #expect(byteByByte.images.map(\.bytes) == whole.images.map(\.bytes))
    }

    /// Each is refused with the code of a bad upload, never a trap, whole or in pieces.
    @Test(arguments: malformed)
    func malformedFormsAreRefused(body: [UInt8]) throws {
        for pieces in [[], Array(stride(from: 1, to: body.count, by: 7))] {
            #expect(throws: UploadError.self) { _ = try Self.read(body, pieces: pieces) }
            do { _ = try Self.read(body, pieces: pieces) } catch let error as UploadError {
                #expect(error.code == .invalidUpload, "\(error)")
            }
        }
    }

    @Test func aBodyWithoutABoundaryHasNoParts() throws {
        let body = Array("just some text, no boundary at all\r\n".utf8)
        do {
            _ = try Self.read(body, pieces: [])
            Issue.record("a body without parts was read")
        } catch let error as UploadError {
            #expect(error.code == .noImages)
        }
    }
}
