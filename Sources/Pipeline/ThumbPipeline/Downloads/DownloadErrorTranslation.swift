import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

extension Downloader {
    /// The HTTP client's, NIO's and NIOSSL's errors, in our codes.
    static func translate(_ error: any Error, url: any CustomStringConvertible, phase: String) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? DownloadError { return error }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .readTimeout, .deadlineExceeded, .writeTimeout, .tlsHandshakeTimeout:
                return DownloadError(.originTimeout, "\(url) timed out while \(phase)")
            case .cancelled:
                return CancellationError()
            case .remoteConnectionClosed:
                return phase == "reading the body"
                    ? DownloadError(.originTruncated, "\(url) closed the connection before the body ended")
                    : DownloadError(.originUnreachable, "\(url) closed the connection")
            default:
                break
            }
        }
        // A certificate refused (self-signed, expired, another name, an unknown authority) or a
        // handshake gone wrong: its own code, so it is not mistaken for an origin that is down.
        if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            return DownloadError(.originTLS, "the TLS handshake with \(url) failed: \(tlsReason(error))")
        }
        // NIO's parser refuses a head past its own ceiling (80 KiB) before we see it; ours is lower
        // (`checkHeadSize`), so both give the same code.
        if let parserError = error as? HTTPParserError, parserError == .headerOverflow {
            return DownloadError(.originHeadersTooLarge, "\(url) sent a response head larger than the HTTP parser takes")
        }
        if error is HTTPParserError, phase == "reading the body" {
            return DownloadError(.originTruncated, "\(url) sent a malformed or incomplete body (\(error))")
        }
        if error is NIOConnectionError || error is IOError || error is ChannelError {
            return DownloadError(.originUnreachable, "cannot connect to \(url): \(error)")
        }
        return DownloadError(.originUnreachable, "\(url) failed while \(phase): \(error)")
    }

    /// BoringSSL says only CERTIFICATE_VERIFY_FAILED, not which check failed, and its text names
    /// the source file of our build: say what it means instead, for the client and the log alike.
    private static func tlsReason(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "its certificate was not accepted (self-signed, expired, or from an authority not trusted here)"
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "its certificate is for another name"
        }
        return text.replacing(#/ at /[^\])]*:\d+/#, with: "")
    }
}
