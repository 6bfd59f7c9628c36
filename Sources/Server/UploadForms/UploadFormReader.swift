import NIOCore
import UploadPreparation

/// Caps on an uploaded form, enforced while it streams in: a request is refused as soon as it
/// crosses one, before the rest arrives.
public struct UploadFormLimits: Sendable, Equatable {
    public var maxImages: Int
    public var maxImageBytes: Int
    public var maxRequestBytes: Int
    /// The params part is product JSON, never large.
    public var maxParamsBytes: Int

    public init(maxImages: Int, maxImageBytes: Int, maxRequestBytes: Int, maxParamsBytes: Int = 1 << 20) {
        self.maxImages = maxImages
        self.maxImageBytes = maxImageBytes
        self.maxRequestBytes = maxRequestBytes
        self.maxParamsBytes = maxParamsBytes
    }
}

/// What a seller's upload form held.
public struct UploadForm: Sendable {
    public var images: [SourceImage]
    public var params: [UInt8]?
}

/// Reads a `multipart/form-data` upload of originals (`images` file parts, an optional `params`
/// JSON part) piece by piece, refusing it the moment it breaks a limit: a sixth image is refused at
/// its headers, an oversized one or an oversized request at the byte that crosses the cap.
public final class UploadFormReader {
    private enum Field { case image(name: String), params }

    private let limits: UploadFormLimits
    private var stream: MultipartStream
    private var current: Field?
    private var currentBytes: [UInt8] = []
    private var sawPart = false
    private var images: [SourceImage] = []
    private var params: [UInt8]?
    private var received = 0
    private var failure: UploadError?

    /// `contentType` is the request's header: it must be multipart/form-data with a boundary.
    public init(contentType: String?, limits: UploadFormLimits) throws(UploadError) {
        guard let contentType else {
            throw UploadError(.invalidUpload, "the request has no Content-Type: send multipart/form-data with `images` file parts")
        }
        let header = HeaderParameters(contentType)
        guard header.value == "multipart/form-data" else {
            throw UploadError(.invalidUpload, "Content-Type is \(header.value), not multipart/form-data")
        }
        guard let boundary = header["boundary"], (1...70).contains(boundary.count) else {
            throw UploadError(.invalidUpload, "the multipart/form-data Content-Type has no valid boundary parameter")
        }
        self.limits = limits
        self.stream = MultipartStream(boundary: boundary)
    }

    /// Checks the announced length before any of the body is read.
    public func checkAnnouncedLength(_ length: Int?) throws(UploadError) {
        if let length, length > limits.maxRequestBytes { throw requestTooLarge(length) }
    }

    public func consume(_ buffer: ByteBuffer) throws(UploadError) {
        received += buffer.readableBytes
        guard received <= limits.maxRequestBytes else { throw requestTooLarge(received) }
        do {
            try stream.feed(buffer.readableBytesView) { event in
                switch event {
                case .partHeaders(let headers): openPart(headers)
                case .body(let bytes): receive(bytes)
                case .partEnd: completePart()
                }
            }
        } catch {
            throw failure ?? UploadError(.invalidUpload, "the multipart body is malformed: \(error)")
        }
        if let failure { throw failure }
    }

    public func finish() throws(UploadError) -> UploadForm {
        if let failure { throw failure }
        guard stream.isClosed || !sawPart else {
            throw UploadError(.invalidUpload, "the multipart body ends inside a part (truncated upload)")
        }
        guard sawPart else { throw UploadError(.noImages, "the form holds no parts: send 1 to \(limits.maxImages) `images` files") }
        return UploadForm(images: images, params: params)
    }

    private func requestTooLarge(_ bytes: Int) -> UploadError {
        UploadError(.requestTooLarge, "the request body is over \(limits.maxRequestBytes) bytes (\(bytes) seen)")
    }

    /// A part is judged by its headers, before any of its content is kept.
    private func openPart(_ headers: [(name: String, value: String)]) {
        sawPart = true
        currentBytes = []
        let disposition = headers.first { $0.name.lowercased() == "content-disposition" }.map { HeaderParameters($0.value) }
        switch disposition?["name"] {
        case RegistrationForm.imagesField?, "images[]"?, "image"?:
            guard images.count < limits.maxImages else {
                fail(UploadError(.tooManyImages, "more than \(limits.maxImages) images: a product takes at most \(limits.maxImages)"))
                return
            }
            let position = images.count + 1
            current = .image(name: disposition?["filename"].flatMap { $0.isEmpty ? nil : $0 } ?? "image \(position)")
        case RegistrationForm.paramsField?:
            current = .params
        case let name?:
            fail(UploadError(.invalidUpload, "unexpected form field \"\(name)\": send `images` files and an optional `params` JSON part"))
        case nil:
            fail(UploadError(.invalidUpload, "a part has no Content-Disposition name"))
        }
    }

    private func receive(_ bytes: ArraySlice<UInt8>) {
        guard failure == nil, let current else { return }
        currentBytes.append(contentsOf: bytes)
        switch current {
        case .image(let name) where currentBytes.count > limits.maxImageBytes:
            fail(UploadError(.imageTooLarge, "the file is over the limit of \(limits.maxImageBytes) bytes",
                             image: ImageReference(position: images.count + 1, name: name)))
        case .params where currentBytes.count > limits.maxParamsBytes:
            fail(UploadError(.invalidUpload, "the params part is over \(limits.maxParamsBytes) bytes"))
        default:
            break
        }
    }

    private func completePart() {
        defer { current = nil; currentBytes = [] }
        guard failure == nil, let current else { return }
        switch current {
        case .image(let name): images.append(SourceImage(name: name, bytes: currentBytes))
        case .params: params = currentBytes
        }
    }

    private func fail(_ error: UploadError) {
        if failure == nil { failure = error }
    }
}
