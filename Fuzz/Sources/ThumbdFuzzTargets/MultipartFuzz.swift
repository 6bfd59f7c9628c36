import NIOCore
import UploadForms
import UploadPreparation

/// The upload form reader: the input's first line is the request's Content-Type, the rest its body,
/// fed in pieces (as a request streams in) of a size the body's length picks.
enum MultipartFuzz {
    static let limits = UploadFormLimits(maxImages: 5, maxImageBytes: 16 << 10, maxRequestBytes: 64 << 10, maxParamsBytes: 4 << 10)
    static let pieceSizes = [1, 2, 7, 64, 1000, Int.max]

    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        let newline = data.firstIndex(of: 0x0A) ?? data.endIndex
        let contentType = String(decoding: data[..<newline], as: UTF8.self)
        let body = newline < data.endIndex ? Array(data[(newline + 1)...]) : []
        guard let form = try? read(contentType: contentType, body: body) else { return }
        try FuzzSupport.require(form.images.count <= limits.maxImages, "\(form.images.count) images read")
        try FuzzSupport.require(form.images.allSatisfy { $0.bytes.count <= limits.maxImageBytes }, "an image over its limit")
        try FuzzSupport.require((form.params?.count ?? 0) <= limits.maxParamsBytes, "params over their limit")
        if let json = form.params, let params = try? ProductParams(json: json) {
            _ = try? RegistrationForm.body(params: params, images: [])
        }
    }

    static func read(contentType: String, body: [UInt8]) throws(UploadError) -> UploadForm {
        let reader = try UploadFormReader(contentType: contentType, limits: limits)
        try reader.checkAnnouncedLength(body.count)
        let piece = pieceSizes[body.count % pieceSizes.count]
        var start = 0
        while start < body.count {
            let end = start + min(piece, body.count - start)
            try reader.consume(ByteBuffer(bytes: body[start..<end]))
            start = end
        }
        return try reader.finish()
    }
}
