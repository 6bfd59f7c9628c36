import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The access log's two line formats, written byte by byte into the pending buffer: no string
/// interpolation, no formatter and no allocation on a request's thread (the time is formatted once
/// a second).
extension AccessLog {
    /// Local time as swift-log writes it, `2026-11-25T01:28:48+0000`.
    static func timestamp(_ seconds: time_t) -> [UInt8] {
        var moment = seconds
        var parts = tm()
        localtime_r(&moment, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return buffer.prefix(length).map { UInt8(bitPattern: $0) }
    }

    static func appendText(_ out: inout [UInt8], stamp: [UInt8], method: String, route: Substring.UTF8View, status: Int,
                           hundredths: Int, cache: String?, code: String?) {
        out.append(contentsOf: stamp)
        out.append(contentsOf: " info thumbd: cache=".utf8)
        out.append(contentsOf: (cache ?? "-").utf8)
        out.append(contentsOf: " code=".utf8)
        out.append(contentsOf: (code ?? "-").utf8)
        out.append(contentsOf: " method=".utf8)
        out.append(contentsOf: method.utf8)
        out.append(contentsOf: " ms=".utf8)
        appendHundredths(&out, hundredths)
        out.append(contentsOf: " path=".utf8)
        // A path is the client's text: nothing in it may end the line or fake another field.
        for byte in route { out.append(byte < 0x21 || byte == 0x7F ? UInt8(ascii: "_") : byte) }
        out.append(contentsOf: " status=".utf8)
        appendInteger(&out, status)
        out.append(contentsOf: " [ThumbServer] request\n".utf8)
    }

    static func appendJSON(_ out: inout [UInt8], stamp: [UInt8], method: String, route: Substring.UTF8View, status: Int,
                           hundredths: Int, cache: String?, code: String?) {
        out.append(contentsOf: "{\"cache\":".utf8)
        appendJSONString(&out, cache.map { $0.utf8[...] })
        out.append(contentsOf: ",\"code\":".utf8)
        appendJSONString(&out, code.map { $0.utf8[...] })
        out.append(contentsOf: ",\"method\":".utf8)
        appendJSONString(&out, method.utf8[...])
        out.append(contentsOf: ",\"ms\":".utf8)
        appendHundredths(&out, hundredths)
        out.append(contentsOf: ",\"path\":".utf8)
        appendJSONString(&out, route)
        out.append(contentsOf: ",\"status\":".utf8)
        appendInteger(&out, status)
        out.append(contentsOf: ",\"time\":\"".utf8)
        out.append(contentsOf: stamp)
        out.append(contentsOf: "\"}\n".utf8)
    }

    /// `null`, or the bytes as a JSON string: quotes, backslashes and control bytes escaped. Bytes
    /// that are not UTF-8 (a path is percent-decoded client text) become U+FFFD.
    static func appendJSONString(_ out: inout [UInt8], _ text: Substring.UTF8View?) {
        guard let text else {
            out.append(contentsOf: "null".utf8)
            return
        }
        out.append(UInt8(ascii: "\""))
        for scalar in String(decoding: text, as: UTF8.self).unicodeScalars {
            switch scalar {
            case "\"": out.append(contentsOf: "\\\"".utf8)
            case "\\": out.append(contentsOf: "\\\\".utf8)
            case "\u{0}"..."\u{1F}", "\u{7F}":
                out.append(contentsOf: "\\u00".utf8)
                let hex = Array("0123456789abcdef".utf8)
                out.append(hex[Int(scalar.value >> 4)])
                out.append(hex[Int(scalar.value & 0xF)])
            default: out.append(contentsOf: String(scalar).utf8)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// 1234 as "12.34".
    static func appendHundredths(_ out: inout [UInt8], _ hundredths: Int) {
        let value = max(0, hundredths)
        appendInteger(&out, value / 100)
        out.append(UInt8(ascii: "."))
        let fraction = value % 100
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10))
        out.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    static func appendInteger(_ out: inout [UInt8], _ value: Int) {
        if value < 0 {
            out.append(UInt8(ascii: "-"))
            appendInteger(&out, -value)
            return
        }
        if value >= 10 { appendInteger(&out, value / 10) }
        out.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
