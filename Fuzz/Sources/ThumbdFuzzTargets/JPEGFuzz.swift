import ImageCore
import JPEGCodec

/// JPEG: the marker walk behind every header read, metadata removal, and libjpeg's decode.
enum JPEGFuzz {
    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        let knob = FuzzSupport.knob(data)
        let info = try? JPEGCodec.readInfo(data)
        _ = try? JPEGCodec.embeddedColor(in: data)
        _ = try? JPEGCodec.metadata(in: data)
        // Uploads hand a JPEG on with its metadata removed: what comes out must carry none, and
        // the image must read as before.
        if let stripped = try? JPEGCodec.removingMetadata(data) {
            try FuzzSupport.require(stripped.count <= data.count, "removing metadata made the file larger")
            if let left = try? JPEGCodec.metadata(in: stripped) {
                try FuzzSupport.require(left.isEmpty, "metadata left after removing it: \(left.names)")
            }
            if let info {
                let again = try? JPEGCodec.readInfo(stripped)
                try FuzzSupport.require(again?.width == info.width && again?.height == info.height,
                                    "the stripped JPEG reads as \(String(describing: again)), not \(info)")
            }
        }
        _ = try? JPEGCodec.decode(data, limits: FuzzSupport.limits, scale: FuzzSupport.scale(knob), keepingCMYK: knob & 0x80 != 0)
    }
}
