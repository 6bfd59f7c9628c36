import AsyncHTTPClient
import ChildProcess
import Foundation
import ImageCodecs
import ImageCore
import NIOCore
import Testing
import TestSupport
import ThumbServer

/// `POST /v1/uploads/prepare` against a real daemon on loopback, with request bodies written by hand
/// here (not by thumbd's own multipart writer).
@Suite(.serialized)
struct UploadTests {
    static let params = #"{"name":"Desk lamp","price":12000}"#

    /// Phone-like photos: 2400x1800 with busy detail, stored turned with EXIF, GPS, XMP and a comment.
    static let photos: [[UInt8]] = (0..<6).map { index in
        let upright = PhonePhoto.synthetic(width: index % 2 == 0 ? 2400 : 1800, height: index % 2 == 0 ? 1800 : 2400, seed: UInt64(40 + index))
        return try! PhonePhoto.jpeg(upright: upright, orientation: [.right, .up, .left, .down, .upMirrored, .right][index])
    }

    /// A multipart/form-data body as a browser would send it.
    static func form(images: [[UInt8]], params: String? = Self.params, boundary: String = "----thumbdTestBoundary7MA4YWxk") -> [UInt8] {
        var body: [UInt8] = []
        func line(_ text: String) { body += Array((text + "\r\n").utf8) }
        if let params {
            line("--\(boundary)")
            line("Content-Disposition: form-data; name=\"params\"")
            line("Content-Type: application/json")
            line("")
            line(params)
        }
        for (index, image) in images.enumerated() {
            line("--\(boundary)")
            line("Content-Disposition: form-data; name=\"images\"; filename=\"IMG_00\(index + 1).JPG\"")
            line("Content-Type: image/jpeg")
            line("")
            body += image
            line("")
        }
        line("--\(boundary)--")
        return body
    }

    static func post(_ daemon: TestDaemon, _ query: String = "", body: [UInt8], headers: [(String, String)] = []) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(daemon.port)/v1/uploads/prepare\(query)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=----thumbdTestBoundary7MA4YWxk")
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Array(collected.readableBytesView))
    }

    static func json(_ reply: Reply) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])
    }

    static func counter(_ daemon: TestDaemon, _ name: String) async throws -> Double {
        let text = String(decoding: try await daemon.get("/metrics").body, as: UTF8.self)
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last!) } ?? 0
    }

    /// Five photos in, a JSON manifest out with each image base64: within 300 KiB, upright, no metadata.
    @Test func jsonAnswer() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let reply = try await Self.post(daemon, body: Self.form(images: Array(Self.photos.prefix(5))))
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(reply.header("content-type") == "application/json")
        let manifest = try Self.json(reply)
        let images = try #require(manifest["images"] as? [[String: Any]])
        try #require(images.count == 5)
        for (index, image) in images.enumerated() {
            let base64 = try #require(image["data"] as? String)
            let bytes = [UInt8](try #require(Data(base64Encoded: base64)))
            #expect(bytes.count == image["bytes"] as? Int)
            #expect(bytes.count <= 300 * 1024)
            #expect(image["source"] as? String == "IMG_00\(index + 1).JPG")
            #expect(!PhonePhoto.markers(bytes).contains(0xE1) && !PhonePhoto.contains(bytes, PhonePhoto.cameraMake))
            let info = try ImageCodecs.readInfo(bytes)
            let portrait = index % 2 == 1  // as the upright pictures are, whatever the stored turn
            #expect((info.height > info.width) == portrait, "image \(index + 1) is \(info.width)x\(info.height)")
        }
        #expect(try await Self.counter(daemon, "thumbd_upload_decodes_total") == 5)
        try await daemon.stop()
    }

    /// `extra_size`: each image's smaller copies in the JSON answer, from the image's one decode;
    /// refused with the registration body, which holds the prepared photos only.
    @Test func extraSizesInTheJSONAnswer() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let reply = try await Self.post(daemon, "?square=1&extra_size=300&extra_size=96", body: Self.form(images: Array(Self.photos.prefix(2))))
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        let images = try #require(try Self.json(reply)["images"] as? [[String: Any]])
        for image in images {
            let extras = try #require(image["extras"] as? [[String: Any]])
            #expect(extras.map { $0["side"] as? Int } == [300, 96])
            for extra in extras {
                let base64 = try #require(extra["data"] as? String)
                let bytes = [UInt8](try #require(Data(base64Encoded: base64)))
                let info = try ImageCodecs.readInfo(bytes)
                #expect(info.width == extra["side"] as? Int && info.height == info.width && bytes.count == extra["bytes"] as? Int)
            }
        }
        #expect(try await Self.counter(daemon, "thumbd_upload_decodes_total") == 2)
        let refused = try await Self.post(daemon, "?response=multipart&extra_size=96", body: Self.form(images: [Self.photos[0]]))
        #expect(refused.status == 400 && refused.problemCode == "invalid_parameter")
        let bad = try await Self.post(daemon, "?extra_size=8", body: Self.form(images: [Self.photos[0]]))
        #expect(bad.status == 400)
        try await daemon.stop()
    }

    /// `response=multipart`: the registration body, read back by Python's email package.
    @Test func multipartAnswer() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let reply = try await Self.post(daemon, "?response=multipart&square=true&budget=120KiB", body: Self.form(images: Array(Self.photos.prefix(2))))
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        let contentType = try #require(reply.header("content-type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-upload-\(UUID().uuidString)")
        try Data(reply.body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = TestPaths.packageRoot.appendingPathComponent("Tests/UploadPreparationTests/Scripts/read_multipart.py").path
        let result = try await Task.detached { try ChildProcess.run("python3", [script, contentType, file.path], timeoutSeconds: 60) }.value
        #expect(result.status == 0, "\(result.stderrText)")
        let parts = result.stdoutText.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        try #require(parts.count == 3)
        #expect(parts[0]["name"] as? String == "params" && parts[0]["text"] as? String == Self.params)
        for part in parts.dropFirst() {
            #expect(part["name"] as? String == "images" && part["content_type"] as? String == "image/jpeg")
            #expect((part["bytes"] as? Int).map { $0 <= 120 * 1024 } == true)
            #expect((part["filename"] as? String)?.hasSuffix(".jpg") == true)
        }
        let noParams = try await Self.post(daemon, "?response=multipart", body: Self.form(images: [Self.photos[0]], params: nil))
        #expect(noParams.status == 400 && noParams.problemCode == "invalid_upload")
        try await daemon.stop()
    }

    /// A sixth image is refused at its headers: 400 too_many_images, and not one image decoded.
    @Test func sixthImageRefusedBeforeAnyDecode() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let reply = try await Self.post(daemon, body: Self.form(images: Self.photos))
        #expect(reply.status == 400)
        #expect(reply.problemCode == "too_many_images")
        #expect(try await Self.counter(daemon, "thumbd_upload_decodes_total") == 0)
        let none = try await Self.post(daemon, body: Self.form(images: []))
        #expect(none.status == 400 && none.problemCode == "no_images")
        try await daemon.stop()
    }

    /// A non-ASCII byte in a part's header name stopped the whole daemon with one request (the
    /// multipart parser it used indexed a table with it). Now: a 400 that says why, and the next
    /// upload is served.
    @Test func hostileHeaderNameIsABadUploadNotACrash() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let boundary = "----thumbdTestBoundary7MA4YWxk"
        var body = Array("--\(boundary)\r\nContent-Disposit".utf8)
        body += [0x95, 0x90]
        body += Array("n: form-data; name=\"images\"\r\n\r\nx\r\n--\(boundary)--\r\n".utf8)
        let reply = try await Self.post(daemon, body: body)
        #expect(reply.status == 400)
        #expect(reply.problemCode == "invalid_upload")
        let next = try await Self.post(daemon, "?budget=300KiB", body: Self.form(images: [Self.photos[0]]))
        #expect(next.status == 200)
        try await daemon.stop()
    }

    /// The same image rules as the library: an unreachable budget and a corrupt image name the image.
    @Test func imageFailuresNameTheImage() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let tiny = try await Self.post(daemon, "?budget=400", body: Self.form(images: [Self.photos[0]]))
        #expect(tiny.status == 422 && tiny.problemCode == "budget_unreachable")
        #expect((try Self.json(tiny)["image"] as? [String: Any])?["position"] as? Int == 1)

        var broken = Self.photos[2]
        broken.removeLast(broken.count / 2)
        let corrupt = try await Self.post(daemon, body: Self.form(images: [Self.photos[0], Self.photos[1], broken]))
        #expect(corrupt.status == 422 && corrupt.problemCode == "truncated_image")
        let problem = try Self.json(corrupt)
        let image = try #require(problem["image"] as? [String: Any])
        #expect(image["position"] as? Int == 3 && image["name"] as? String == "IMG_003.JPG")

        let unknown = try await Self.post(daemon, "?colour=red", body: Self.form(images: [Self.photos[0]]))
        #expect(unknown.status == 400 && unknown.problemCode == "invalid_parameter")
        let notMultipart = try await Self.post(daemon, body: Array("{}".utf8), headers: [("Content-Type", "application/json")])
        #expect(notMultipart.status == 400 && notMultipart.problemCode == "invalid_upload")
        try await daemon.stop()
    }

    /// The request cap: an announced length over it is refused before the body is read; a chunked
    /// body is refused at the byte that crosses it; an image over its own cap too. The connection closes.
    @Test func oversizedRequests() async throws {
        let daemon = try await TestDaemon.start(memoryOnly: true) { settings in
            settings.maxUploadRequestBytes = 1_000_000
            settings.uploads.maxImageBytes = 600_000
        }
        let head = "POST /v1/uploads/prepare HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=----thumbdTestBoundary7MA4YWxk\r\n"
        let announced = try await RawHTTP.exchange(port: daemon.port, head + "Content-Length: 200000000\r\n\r\n")
        #expect(announced.hasPrefix("HTTP/1.1 413"), "\(announced.prefix(200))")
        #expect(announced.contains("request_too_large"))

        let big = try ImageCodecs.encode(PhonePhoto.synthetic(width: 1100, height: 1100, seed: 9), .jpeg(quality: 100))
        let half = Array(big.prefix(550_000))  // each under the image cap, together over the request cap
        let large = Self.form(images: [half, half])
        #expect(big.count > 700_000 && large.count > 1_000_000)
        let chunk = Array(large.prefix(1_000_001))
        let chunked = try await RawHTTP.exchange(port: daemon.port, bytes: Array((head + "Transfer-Encoding: chunked\r\n\r\n" + String(chunk.count, radix: 16) + "\r\n").utf8) + chunk)
        #expect(chunked.hasPrefix("HTTP/1.1 413"), "\(chunked.prefix(200))")
        #expect(chunked.contains("request_too_large"))

        let oneTooLarge = try await Self.post(daemon, body: Self.form(images: [Array(big.prefix(700_000))]))
        #expect(oneTooLarge.status == 413 && oneTooLarge.problemCode == "image_too_large")
        #expect(try await daemon.get("/healthz").status == 200)
        try await daemon.stop()
    }
}
