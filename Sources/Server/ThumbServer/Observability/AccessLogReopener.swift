import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGHUP reopens the access log file, as logrotate expects after it has moved the old one away.
final class AccessLogReopener: Sendable {
    private nonisolated(unsafe) let source: DispatchSourceSignal

    init(accessLog: AccessLog) {
        // The default action of SIGHUP ends the process: ignore it, and take it through a source.
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { accessLog.reopen() }
        source.resume()
    }

    func stop() { source.cancel() }
}
