import ImageCodecs
import ImageCore

/// EXIF orientation: the TIFF reader on the bytes alone (from index 0 and from a slice that starts
/// later, as JPEG and WebP hand it segments), then the same bytes inside each container's EXIF place.
enum ExifFuzz {
    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        _ = ExifOrientation.read(tiff: data)
        if data.count > 1 {
            // A slice whose indices start at 1 must read like the same bytes copied out.
            let slice = data[1...]
            try FuzzSupport.require(ExifOrientation.read(tiff: slice) == ExifOrientation.read(tiff: Array(slice)),
                                "a slice reads differently from its copy")
        }
        let wrapped = ExifContainers.jpeg(exif: data)
        if ExifContainers.jpegCarries(data), let info = try? ImageCodecs.readInfo(wrapped, limits: FuzzSupport.limits) {
            // The APP1 payload ("Exif\0\0", then the bytes) reads as the bare reader reads it.
            let expected = ExifOrientation.read(tiff: ExifContainers.exifHeader + data)
            try FuzzSupport.require(info.orientation == expected, "JPEG APP1 read as \(info.orientation), the bytes as \(expected)")
        }
        _ = try? ImageCodecs.metadata(in: wrapped)
        _ = try? ImageCodecs.readInfo(ExifContainers.webp(exif: data), limits: FuzzSupport.limits)
        _ = try? ImageCodecs.readInfo(ExifContainers.png(exif: data), limits: FuzzSupport.limits)
    }
}
