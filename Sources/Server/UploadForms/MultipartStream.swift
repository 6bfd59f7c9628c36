/// Reads a multipart body (RFC 2046 §5.1, as RFC 7578 uses it for forms) as it streams in.
///
/// Written here rather than taken from MultipartKit: its parser indexes a 128-entry table with any
/// byte of a part's header name, so one request with a non-ASCII byte there stopped the whole daemon
/// (found by the multipart fuzz target; `TestImages/fuzz-regressions/multipart/`).
struct MultipartStream {
    enum Event {
        case partHeaders([(name: String, value: String)])
        case body(ArraySlice<UInt8>)
        case partEnd
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    private enum State { case preamble, afterDelimiter, headers, body, epilogue }

    /// A part's header block is a few lines; a sender going on past this is not sending a form.
    static let maxHeaderBytes = 16 << 10
    /// Transport padding allowed after a boundary (RFC 2046's LWSP before the CRLF).
    private static let maxPadding = 256

    /// `CRLF--boundary`: every delimiter, the first included, since the body is read as if it began
    /// with a CRLF (a form may start with its first boundary or with a preamble).
    private let delimiter: [UInt8]
    private var pending: [UInt8] = [0x0D, 0x0A]
    private var state = State.preamble

    init(boundary: String) {
        delimiter = [0x0D, 0x0A, 0x2D, 0x2D] + Array(boundary.utf8)
    }

    /// True once the closing delimiter (`--boundary--`) has been read.
    var isClosed: Bool { state == .epilogue }

    /// Takes the next bytes of the body and hands out what they complete, in order. Bytes that may
    /// be the start of a delimiter are kept until the next call decides.
    mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes,
                                                 _ handle: (Event) -> Void) throws(Malformed) {
        guard state != .epilogue else { return }
        pending.append(contentsOf: bytes)
        var position = 0
        while let next = try step(from: position, handle) { position = next }
        pending.removeSubrange(0..<position)
    }

    /// One step of the state machine from `position`: the position after what it consumed, or nil
    /// when it needs more bytes.
    private mutating func step(from position: Int, _ handle: (Event) -> Void) throws(Malformed) -> Int? {
        switch state {
        case .preamble:
            guard let found = find(delimiter, from: position) else {
                // The preamble is ignored: keep only what could be the start of the first delimiter.
                let keptFrom = pending.count - (delimiter.count - 1)
                return keptFrom > position ? keptFrom : nil
            }
            state = .afterDelimiter
            return found + delimiter.count
        case .afterDelimiter:
            return try readBoundaryLineEnd(from: position)
        case .headers:
            return try readHeaders(from: position, handle)
        case .body:
            if let found = find(delimiter, from: position) {
                if found > position { handle(.body(pending[position..<found])) }
                handle(.partEnd)
                state = .afterDelimiter
                return found + delimiter.count
            }
            // All but a tail that could still turn out to be a delimiter's start is content.
            let safeEnd = pending.count - (delimiter.count - 1)
            guard safeEnd > position else { return nil }
            handle(.body(pending[position..<safeEnd]))
            return safeEnd
        case .epilogue:
            return nil
        }
    }

    /// After `--boundary`: `--` closes the body; otherwise optional padding, then CRLF, then a part.
    private mutating func readBoundaryLineEnd(from position: Int) throws(Malformed) -> Int? {
        guard pending.count - position >= 2 else { return nil }
        if pending[position] == 0x2D, pending[position + 1] == 0x2D {
            state = .epilogue
            return pending.count
        }
        var index = position
        while index < pending.count, pending[index] == 0x20 || pending[index] == 0x09 {
            index += 1
            if index - position > Self.maxPadding {
                throw Malformed(description: "a boundary line goes on with spaces")
            }
        }
        guard pending.count - index >= 2 else { return nil }
        guard pending[index] == 0x0D, pending[index + 1] == 0x0A else {
            throw Malformed(description: "a boundary is followed by other characters than a line end")
        }
        state = .headers
        return index + 2
    }

    private mutating func readHeaders(from position: Int, _ handle: (Event) -> Void) throws(Malformed) -> Int? {
        if pending.count - position >= 2, pending[position] == 0x0D, pending[position + 1] == 0x0A {
            handle(.partHeaders([]))
            state = .body
            return position + 2
        }
        guard let end = find([0x0D, 0x0A, 0x0D, 0x0A], from: position) else {
            if pending.count - position > Self.maxHeaderBytes {
                throw Malformed(description: "a part's headers are over \(Self.maxHeaderBytes / 1024) KiB")
            }
            return nil
        }
        guard end - position <= Self.maxHeaderBytes else {
            throw Malformed(description: "a part's headers are over \(Self.maxHeaderBytes / 1024) KiB")
        }
        handle(.partHeaders(try Self.headerFields(pending[position..<end])))
        state = .body
        return end + 4
    }

    /// `Name: value` lines; a line starting with a space or tab continues the previous value.
    private static func headerFields(_ block: ArraySlice<UInt8>) throws(Malformed) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for line in block.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let line = line.last == 0x0D ? line.dropLast() : line
            if let first = line.first, first == 0x20 || first == 0x09, !fields.isEmpty {
                fields[fields.count - 1].value += " " + trimmed(line)
                continue
            }
            guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex else {
                throw Malformed(description: "a part's header line has no name")
            }
            let name = line[..<colon]
            guard name.allSatisfy(HTTPToken.isTokenByte) else {
                throw Malformed(description: "a part's header name holds a character a header name may not")
            }
            fields.append((String(decoding: name, as: UTF8.self), trimmed(line[(colon + 1)...])))
        }
        return fields
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let start = bytes.firstIndex { !isSpace($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !isSpace($0) }.map { $0 + 1 } ?? start
        return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }

    /// The first index from `start` where `needle` begins in `pending`.
    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, pending.count - start >= needle.count else { return nil }
        var index = start
        let last = pending.count - needle.count
        while index <= last {
            guard let candidate = pending[index...last].firstIndex(of: first) else { return nil }
            var matched = 1
            while matched < needle.count, pending[candidate + matched] == needle[matched] { matched += 1 }
            if matched == needle.count { return candidate }
            index = candidate + 1
        }
        return nil
    }
}
