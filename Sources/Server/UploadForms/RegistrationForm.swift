import Foundation
import MultipartKit
import NIOCore
import NIOHTTP1
import UploadPreparation

/// The product's JSON for the body's `params` part, checked once when it is made: a JSON object
/// (the marketplace reads named fields from it).
public struct ProductParams: Sendable, Equatable {
    public let bytes: [UInt8]

    public init(json bytes: [UInt8]) throws(UploadError) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw UploadError(.invalidRequest, "params is not valid JSON: \(error.localizedDescription)")
        }
        guard object is [String: Any] else {
            throw UploadError(.invalidRequest, "params must be a JSON object ({…}), not \(type(of: object))")
        }
        self.bytes = bytes
    }
}

/// A ready `multipart/form-data` request body.
public struct MultipartBody: Sendable {
    public var boundary: String
    public var bytes: [UInt8]

    /// The request's `Content-Type` value, with the boundary.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }
}

/// The marketplace's product registration body: one `params` part holding the product's JSON and one
/// `images` part per prepared photo, each with a file name whose extension matches its bytes and the
/// matching Content-Type.
public enum RegistrationForm {
    public static let paramsField = "params"
    public static let imagesField = "images"

    public static func body(params: ProductParams, images: [PreparedImage]) throws(UploadError) -> MultipartBody {
        var parts = [part(name: paramsField, fileName: nil, contentType: "application/json", body: params.bytes)]
        for image in images {
            parts.append(part(name: imagesField, fileName: image.fileName, contentType: image.format.mimeType, body: image.bytes))
        }
        // A random boundary, checked anyway: the parts are binary and must not contain it.
        var boundary: String
        repeat {
            boundary = "thumbd-" + (0..<24).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
        } while parts.contains(where: { contains($0.body, Array("--\(boundary)".utf8)) })
        var buffer = ByteBuffer()
        do {
            try MultipartSerializer().serialize(parts: parts, boundary: boundary, into: &buffer)
        } catch {
            throw UploadError(.encodeFailed, "could not write the multipart body: \(error)")
        }
        return MultipartBody(boundary: boundary, bytes: Array(buffer.readableBytesView))
    }

    private static func part(name: String, fileName: String?, contentType: String, body: [UInt8]) -> MultipartPart {
        var disposition = "form-data; name=\(HeaderParameters.quoted(name))"
        if let fileName { disposition += "; filename=\(HeaderParameters.quoted(fileName))" }
        return MultipartPart(headers: HTTPHeaders([("Content-Disposition", disposition), ("Content-Type", contentType)]), body: body)
    }

    private static func contains(_ body: ByteBuffer, _ needle: [UInt8]) -> Bool {
        let bytes = body.readableBytesView
        guard bytes.count >= needle.count, let first = needle.first else { return false }
        var index = bytes.startIndex
        while let found = bytes[index...].firstIndex(of: first) {
            if bytes[found...].starts(with: needle) { return true }
            index = bytes.index(after: found)
        }
        return false
    }
}
