import NIOCore
import NIOHTTP1

extension HTTPResponseHead {
    /// The head as NIO's encoder writes it (status line, `name: value` lines, a blank line), for the
    /// raw hit path (`RawHitAnswerer`), which writes bytes past the encoder.
    func encodedBytes() -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(256)
        buffer.writeString("HTTP/\(version.major).\(version.minor) \(status.code) \(status.reasonPhrase)\r\n")
        for (name, value) in headers {
            buffer.writeString(name)
            buffer.writeStaticString(": ")
            buffer.writeString(value)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("\r\n")
        return buffer
    }
}
