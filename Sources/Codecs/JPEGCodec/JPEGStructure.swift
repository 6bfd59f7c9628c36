import ImageCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the JPEG's markers say, read without decoding any pixels.
///
/// libjpeg-turbo reports truncation only as a warning and then pads the image with grey; to refuse
/// truncated files we walk the markers ourselves and require an EOI after the last scan. The same
/// walk tells the frame type (so unsupported 12-bit, lossless and hierarchical files are named as
/// such), the component sampling (to size a progressive decode's coefficient buffer), the Adobe
/// transform (CMYK stored inverted) and the EXIF orientation.
struct JPEGStructure {
    struct Component { var id: UInt8 = 0; var horizontalSampling: Int; var verticalSampling: Int }

    /// A scan: its bytes (marker to the end of its entropy-coded data), the components it codes, its
    /// first coefficient (0 for a DC scan), and the bit position its coefficients were sent to before
    /// (`Ah`: 0 for a first pass, above 0 for a refinement that adds one more bit).
    struct Scan { var bytes: Range<Int>; var componentIDs: [UInt8]; var spectralStart: Int; var refinedBit = 0 }

    enum Coding { case baseline, extendedSequential, progressive, lossless, hierarchical }

    var width = 0
    var height = 0
    var precision = 8
    var coding: Coding = .baseline
    var arithmetic = false
    var components: [Component] = []
    var hasAdobeMarker = false
    var orientation: Orientation = .up
    /// APP2 `ICC_PROFILE` chunks in file order: (sequence number, chunk count, payload).
    var iccChunks: [(sequence: Int, count: Int, payload: [UInt8])] = []
    var scanCount = 0
    var scans: [Scan] = []
    var endsWithEOI = false
    /// Metadata found in application segments, comments and after the end marker.
    var metadata: EmbeddedMetadata = []
    /// Byte ranges (marker included) of the segments that carry metadata and nothing a decoder needs.
    var metadataSegments: [Range<Int>] = []
    /// Index just past the EOI marker (0 when there is none).
    var endOfImage = 0
    /// A segment or scan ran past the end of the data.
    var truncated = false

    /// True when libjpeg must keep every DCT coefficient of the whole image in memory.
    var buffersAllCoefficients: Bool { coding == .progressive || scanCount > 1 }

    /// Bytes of the whole-image coefficient buffer libjpeg allocates for a buffered decode:
    /// 64 coefficients of 2 bytes per 8x8 block, for every component, padded to whole MCUs.
    var coefficientBytes: Int {
        guard let maxH = components.map(\.horizontalSampling).max(),
              let maxV = components.map(\.verticalSampling).max(), maxH > 0, maxV > 0 else { return 0 }
        let mcuColumns = (width + 8 * maxH - 1) / (8 * maxH)
        let mcuRows = (height + 8 * maxV - 1) / (8 * maxV)
        return components.reduce(0) { total, c in
            total + mcuColumns * c.horizontalSampling * mcuRows * c.verticalSampling * 128
        }
    }

    init(_ data: UnsafeBufferPointer<UInt8>) {
        let count = data.count
        guard count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return }
        var at = 2
        while at < count {
            // Like libjpeg, skip stray bytes up to the next marker ("extraneous bytes before marker"):
            // damaged segment lengths are common in the wild and the rest of the file is still good.
            if data[at] != 0xFF {
                guard let next = Self.nextByte(0xFF, in: data, from: at) else { truncated = true; return }
                at = next
            }
            let markerStart = at
            // Markers may be preceded by any number of 0xFF fill bytes.
            while at < count && data[at] == 0xFF { at += 1 }
            guard at < count else { truncated = true; return }
            let marker = data[at]
            at += 1
            switch marker {
            case 0xD9:
                endsWithEOI = true
                endOfImage = at
                if at < count { metadata.insert(.trailingData) }
                return
            case 0x01, 0xD0...0xD7:
                continue  // standalone markers without a length
            case 0x00:
                // A stuffed zero outside a scan is garbage to libjpeg, which skips it and looks on for
                // a marker; read as a segment, its made-up length would hide the segments behind it.
                continue
            default:
                break
            }
            guard at + 2 <= count else { truncated = true; return }
            let length = Int(data[at]) << 8 | Int(data[at + 1])
            guard length >= 2 else { return }
            guard at + length <= count else { truncated = true; return }
            let segment = UnsafeBufferPointer(rebasing: data[(at + 2)..<(at + length)])
            read(marker: marker, segment: segment)
            if let kind = Self.metadataKind(marker: marker, segment: segment) {
                metadata.insert(kind)
                metadataSegments.append(markerStart..<(at + length))
            }
            at += length
            if marker == 0xDA {
                scanCount += 1
                guard let next = Self.endOfEntropyData(data, from: at) else { truncated = true; return }
                scans.append(Self.scan(header: segment, bytes: markerStart..<next))
                at = next
            }
        }
        truncated = true
    }

    private mutating func read(marker: UInt8, segment: UnsafeBufferPointer<UInt8>) {
        switch marker {
        case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
            guard segment.count >= 6 else { return }
            precision = Int(segment[0])
            height = Int(segment[1]) << 8 | Int(segment[2])
            width = Int(segment[3]) << 8 | Int(segment[4])
            let componentCount = Int(segment[5])
            components = (0..<componentCount).compactMap { index in
                let at = 6 + index * 3
                guard at + 2 < segment.count else { return nil }
                return Component(id: segment[at], horizontalSampling: Int(segment[at + 1] >> 4), verticalSampling: Int(segment[at + 1] & 0x0F))
            }
            let kind = marker & 0x03
            arithmetic = marker >= 0xC9
            switch kind {
            case 0: coding = .baseline
            case 1: coding = .extendedSequential
            case 2: coding = .progressive
            default: coding = .lossless
            }
            if (marker & 0x07) >= 5 { coding = .hierarchical }
        case 0xE1:
            let exif: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
            if segment.count > 14, segment.prefix(6).elementsEqual(exif), orientation == .up {
                orientation = ExifOrientation.read(tiff: segment)
            }
        case 0xE2:
            // "ICC_PROFILE\0", then this chunk's number (from 1) and the number of chunks.
            let tag = Array("ICC_PROFILE\0".utf8)
            if segment.count >= tag.count + 2, segment.prefix(tag.count).elementsEqual(tag) {
                iccChunks.append((Int(segment[tag.count]), Int(segment[tag.count + 1]), Array(segment[(tag.count + 2)...])))
            }
        case 0xEE:
            if segment.count >= 5, segment.prefix(5).elementsEqual([0x41, 0x64, 0x6F, 0x62, 0x65]) {
                hasAdobeMarker = true
            }
        default:
            break
        }
    }

    /// What an APPn or COM segment holds, or nil when a decoder needs it: JFIF (pixel density) and
    /// Adobe APP14 (whether the colour is YCbCr or RGB/CMYK, and CMYK inversion) stay.
    private static func metadataKind(marker: UInt8, segment: UnsafeBufferPointer<UInt8>) -> EmbeddedMetadata? {
        func starts(_ text: String) -> Bool { segment.starts(with: Array(text.utf8)) }
        switch marker {
        case 0xE0: return starts("JFIF\0") ? nil : .otherApplicationData
        case 0xE1:
            if starts("Exif\0") { return .exif }
            if starts("http://ns.adobe.com/xap/1.0/\0") || starts("http://ns.adobe.com/xmp/extension/\0") { return .xmp }
            return .otherApplicationData
        case 0xE2: return starts("ICC_PROFILE\0") ? .iccProfile : .otherApplicationData
        case 0xEE: return starts("Adobe") ? nil : .otherApplicationData
        case 0xE3...0xEF: return .otherApplicationData
        case 0xFE: return .comment
        default: return nil
        }
    }

    private static func scan(header: UnsafeBufferPointer<UInt8>, bytes: Range<Int>) -> Scan {
        let count = header.isEmpty ? 0 : Int(header[0])
        let ids = (0..<count).compactMap { 1 + 2 * $0 < header.count ? header[1 + 2 * $0] : nil }
        let spectralStart = 1 + 2 * count < header.count ? Int(header[1 + 2 * count]) : 0
        let refinedBit = 3 + 2 * count < header.count ? Int(header[3 + 2 * count] >> 4) : 0
        return Scan(bytes: bytes, componentIDs: ids, spectralStart: spectralStart, refinedBit: refinedBit)
    }

    /// Index of the first marker after entropy-coded data (0xFF followed by anything but a stuffed
    /// zero, a restart marker or more fill), or nil when the data ends first.
    private static func endOfEntropyData(_ data: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var at = start
        while at < data.count {
            guard let index = nextByte(0xFF, in: data, from: at) else { return nil }
            var next = index + 1
            while next < data.count && data[next] == 0xFF { next += 1 }
            guard next < data.count else { return nil }
            let byte = data[next]
            if byte == 0x00 || (0xD0...0xD7).contains(byte) {
                at = next + 1
                continue
            }
            return index
        }
        return nil
    }

    private static func nextByte(_ byte: UInt8, in data: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = data.baseAddress, start < data.count,
              let found = memchr(base + start, Int32(byte), data.count - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}
