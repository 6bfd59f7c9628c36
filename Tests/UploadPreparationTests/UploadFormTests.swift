import ChildProcess
import Foundation
import ImageCodecs
import NIOCore
import Testing
import TestSupport
import UploadForms
import UploadPreparation

struct UploadFormTests {
    static let params = Array(#"{"name":"Lamp \"Nordic\"","price":12000,"tags":["home","light"]}"#.utf8)

    static func prepared(_ count: Int) async throws -> [PreparedImage] {
        let sources = (0..<count).map { i in
            SourceImage(name: "photo \(i + 1).jpg",
                        bytes: try! ImageCodecs.encode(PhonePhoto.synthetic(width: 320 + 16 * i, height: 240, seed: UInt64(i)), .jpeg(quality: 80)))
        }
        var settings = UploadSettings()
        settings.maxImages = 10
        return try await UploadPreparer.prepare(sources, settings: settings, run: Fixtures.run)
    }

    /// The registration body, read back by Python's email package: the same JSON, the same bytes,
    /// file names with the right extension and the right Content-Type.
    @Test func registrationBodyReadByAnIndependentParser() async throws {
        let images = try await Self.prepared(3)
        let body = try RegistrationForm.body(params: try ProductParams(json: Self.params), images: images)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("body")
        try Data(body.bytes).write(to: file)
        let script = TestPaths.packageRoot.appendingPathComponent("Tests/UploadPreparationTests/Scripts/read_multipart.py").path
        let result = try ChildProcess.run("python3", [script, body.contentType, file.path], timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.stderrText)")
        let parts = result.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        try #require(parts.count == 4)
        #expect(parts[0]["name"] as? String == "params")
        #expect(parts[0]["content_type"] as? String == "application/json")
        #expect((parts[0]["text"] as? String).map { Array($0.utf8) } == Self.params)
        for (part, image) in zip(parts.dropFirst(), images) {
            #expect(part["name"] as? String == "images")
            #expect(part["filename"] as? String == image.fileName)
            #expect((part["filename"] as? String)?.hasSuffix(".jpg") == true)
            #expect(part["content_type"] as? String == "image/jpeg")
            #expect(part["sha256"] as? String == SHA256.hex(image.bytes))
        }
        #expect(body.contentType.hasPrefix("multipart/form-data; boundary=thumbd-"))
    }

    /// Params must be a JSON object.
    @Test func paramsMustBeAJSONObject() async throws {
        let images = try await Self.prepared(1)
        #expect(Self.code { try ProductParams(json: Array("{oops".utf8)) } == .invalidRequest)
        #expect(Self.code { try ProductParams(json: Array("[1,2]".utf8)) } == .invalidRequest)
        #expect(try RegistrationForm.body(params: ProductParams(json: Array("{}".utf8)), images: images).bytes.isEmpty == false)
    }

    /// Our writer and our reader agree; the reader keeps names and bytes, in order.
    @Test func readerRoundTrip() async throws {
        let images = try await Self.prepared(5)
        let body = try RegistrationForm.body(params: try ProductParams(json: Self.params), images: images)
        let reader = try UploadFormReader(contentType: body.contentType, limits: Self.limits)
        // Small pieces, as a socket delivers them.
        for start in stride(from: 0, to: body.bytes.count, by: 1000) {
            try reader.consume(ByteBuffer(bytes: body.bytes[start..<min(body.bytes.count, start + 1000)]))
        }
        let form = try reader.finish()
        #expect(form.params == Self.params)
        #expect(form.images.map(\.name) == images.map(\.fileName))
        #expect(form.images.map(\.bytes) == images.map(\.bytes))
    }

    static let limits = UploadFormLimits(maxImages: 5, maxImageBytes: 1 << 20, maxRequestBytes: 8 << 20)

    /// A sixth image is refused at its headers, before its bytes arrive; an oversized image, an
    /// oversized request, a truncated or malformed body and the wrong Content-Type are refused too.
    @Test func readerEnforcesLimits() async throws {
        let images = try await Self.prepared(6)
        let six = try RegistrationForm.body(params: try ProductParams(json: Self.params), images: images)
        let sixthStart = try #require(Self.index(of: Array("filename=\"\(images[5].fileName)\"".utf8), in: six.bytes))
        let headersEnd = try #require(Self.index(of: Array("\r\n\r\n".utf8), in: six.bytes, from: sixthStart)) + 4
        let reader = try UploadFormReader(contentType: six.contentType, limits: Self.limits)
        #expect(throws: UploadError.self) {
            try reader.consume(ByteBuffer(bytes: six.bytes[..<(headersEnd + 1)]))
        }
        #expect(Self.code { try reader.finish() } == .tooManyImages)

        var small = Self.limits
        small.maxImageBytes = images[0].bytes.count - 1
        #expect(Self.code { try Self.read(six, small) } == .imageTooLarge)
        small = Self.limits
        small.maxRequestBytes = six.bytes.count / 2
        #expect(Self.code { try Self.read(six, small) } == .requestTooLarge)
        #expect(Self.code { try UploadFormReader(contentType: six.contentType, limits: small).checkAnnouncedLength(six.bytes.count) } == .requestTooLarge)

        let five = try RegistrationForm.body(params: try ProductParams(json: Self.params), images: Array(images.prefix(5)))
        var cut = five
        cut.bytes = Array(five.bytes.prefix(five.bytes.count / 2))
        #expect(Self.code { try Self.read(cut, Self.limits) } == .invalidUpload)
        #expect(Self.code { try UploadFormReader(contentType: "application/json", limits: Self.limits) } == .invalidUpload)
        #expect(Self.code { try UploadFormReader(contentType: "multipart/form-data", limits: Self.limits) } == .invalidUpload)
        var garbage = five
        garbage.bytes = Array("--\(five.boundary)\r\nno colon here\r\n\r\n".utf8)
        #expect(Self.code { try Self.read(garbage, Self.limits) } == .invalidUpload)
        let paramsOnly = try RegistrationForm.body(params: try ProductParams(json: Self.params), images: [])
        let form = try Self.read(paramsOnly, Self.limits)
        #expect(form.images.isEmpty && form.params == Self.params)
        await #expect(throws: UploadError(.noImages, "no images given: a product needs 1 to 5")) {
            try await UploadPreparer.prepare(form.images, settings: UploadSettings(), run: Fixtures.run)
        }
    }

    @Test func headerParameters() {
        let disposition = HeaderParameters(#"form-data; name="images"; filename="a; b=\"c\".jpg""#)
        #expect(disposition.value == "form-data")
        #expect(disposition["NAME"] == "images")
        #expect(disposition["filename"] == #"a; b="c".jpg"#)
        #expect(HeaderParameters("Multipart/Form-Data; boundary=abc").parameters == ["boundary": "abc"])
    }

    static func read(_ body: MultipartBody, _ limits: UploadFormLimits) throws -> UploadForm {
        let reader = try UploadFormReader(contentType: body.contentType, limits: limits)
        try reader.consume(ByteBuffer(bytes: body.bytes))
        return try reader.finish()
    }

    static func code(_ work: () throws -> Any) -> UploadError.Code? {
        do { _ = try work(); return nil } catch let error as UploadError { return error.code } catch { return nil }
    }

    static func index(of needle: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
