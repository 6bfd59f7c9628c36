import NIOCore
import UploadForms

/// The head of an HTTP/1.1 request read straight from the connection's bytes, for the one request
/// shape a cache hit has: `GET /v1/thumbnail?… HTTP/1.1`, no body, the connection kept. Anything
/// else, or anything unusual (a folded or malformed header, a body, a bare LF, bytes outside ASCII),
/// is not judged here: NIO's decoder reads it, and refuses what must be refused.
struct RawRequestHead {
    /// The bytes of the whole head, blank line included.
    let length: Int
    /// `/v1/thumbnail?…` for a hit candidate; nil for a request NIO's path must answer.
    let thumbnailTarget: ByteBufferView?
    let accept: ByteBufferView?
    let ifNoneMatch: ByteBufferView?

    enum Reading {
        /// The head has not arrived whole yet.
        case incomplete
        /// Not a request this reader can delimit (a body follows, or its framing is unusual): from
        /// here on, NIO's decoder reads the connection.
        case notDelimitable
        case request(RawRequestHead)
    }

    /// NIO's decoder takes heads up to 80 KiB; a thumbnail request is a few hundred bytes. A
    /// longer head is left to the decoder, which applies its own limits.
    static let maxLength = 16 << 10

    private static let requestLineStart = Array("GET /v1/thumbnail?".utf8)
    private static let versionEnd = Array(" HTTP/1.1".utf8)

    static func read(_ bytes: ByteBufferView) -> Reading {
        guard let end = headEnd(bytes) else {
            return bytes.count > maxLength ? .notDelimitable : .incomplete
        }
        let start = bytes.startIndex
        // NIO's decoder must see the same requests this reader counts: a CR or LF that is not part of
        // a CRLF could frame them differently.
        guard linesEndInCRLF(bytes[start..<end + 4]),
              let lineEnd = bytes[start...end].firstIndex(of: UInt8(ascii: "\r")) else { return .notDelimitable }
        var fields = Fields()
        var fieldStart = lineEnd + 2
        while fieldStart < end {
            guard let fieldEnd = bytes[fieldStart...end].firstIndex(of: UInt8(ascii: "\r")),
                  fields.read(bytes[fieldStart..<fieldEnd]) else { return .notDelimitable }
            fieldStart = fieldEnd + 2
        }
        guard !fields.announcesBody else { return .notDelimitable }
        let length = end + 4 - start
        let line = bytes[start..<lineEnd]
        guard fields.keepsConnection, line.starts(with: requestLineStart), line.count > versionEnd.count,
              line.suffix(versionEnd.count).elementsEqual(versionEnd) else {
            return .request(RawRequestHead(length: length, thumbnailTarget: nil, accept: nil, ifNoneMatch: nil))
        }
        let target = line.dropFirst(4).dropLast(versionEnd.count)
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return .notDelimitable }
        return .request(RawRequestHead(length: length, thumbnailTarget: target, accept: fields.accept, ifNoneMatch: fields.ifNoneMatch))
    }

    private static func linesEndInCRLF(_ head: ByteBufferView) -> Bool {
        var afterCR = false
        for byte in head {
            if afterCR != (byte == UInt8(ascii: "\n")) { return false }
            afterCR = byte == UInt8(ascii: "\r")
        }
        return !afterCR
    }

    /// Where `\r\n\r\n` begins; nil if it has not arrived. A bare CR or LF anywhere before it makes
    /// the head one for NIO's decoder (returned as the end of a head NIO will refuse or read).
    private static func headEnd(_ bytes: ByteBufferView) -> Int? {
        var index = bytes.startIndex
        while let cr = bytes[index...].firstIndex(of: UInt8(ascii: "\r")) {
            guard cr + 3 < bytes.endIndex else { return nil }
            if bytes[cr + 1] == UInt8(ascii: "\n"), bytes[cr + 2] == UInt8(ascii: "\r"), bytes[cr + 3] == UInt8(ascii: "\n") {
                return cr
            }
            index = cr + 1
        }
        return nil
    }

    /// The header fields a hit needs, and those that make a request one for NIO's path.
    private struct Fields {
        var accept: ByteBufferView?
        var ifNoneMatch: ByteBufferView?
        var announcesBody = false
        var keepsConnection = true

        /// One `name: value` line; false for a line NIO's decoder must judge.
        mutating func read(_ line: ByteBufferView) -> Bool {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(HTTPToken.isTokenByte),
                  line.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0x09 }) else { return false }
            let name = line[line.startIndex..<colon]
            var value = line[(colon + 1)...]
            while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
            while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
            switch name.count {
            case 6 where Self.named(name, "accept"):
                if accept == nil { accept = value }
            case 13 where Self.named(name, "if-none-match"):
                if ifNoneMatch == nil { ifNoneMatch = value }
            case 14 where Self.named(name, "content-length"):
                if !value.elementsEqual([UInt8(ascii: "0")]) { announcesBody = true }
            case 17 where Self.named(name, "transfer-encoding"):
                announcesBody = true
            case 10 where Self.named(name, "connection"):
                if !Self.named(value, "keep-alive") { keepsConnection = false }
            case 7 where Self.named(name, "upgrade"), 6 where Self.named(name, "expect"):
                keepsConnection = false
            default:
                break
            }
            return true
        }

        /// Compares ASCII without case: `lowercase` is letters and `-` only, which `| 0x20` leaves alone.
        static func named(_ name: ByteBufferView, _ lowercase: String) -> Bool {
            name.elementsEqual(lowercase.utf8) { $0 | 0x20 == $1 }
        }
    }
}
