import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// getaddrinfo, which blocks for as long as DNS takes (seconds when a server does not answer).
///
/// Each lookup runs on a thread of its own: on Swift's cooperative pool (one thread per core) a
/// few slow lookups would stall every task in the process.
enum SystemLookup {
    static func addresses(host: String, port: Int) async throws -> [IPAddress] {
        let outcome = LookupOutcome()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard outcome.attach(continuation) else { return }
                let thread = Thread {
                    outcome.finish(Result<[IPAddress], any Error> { try blockingLookUp(host: host, port: port) })
                }
                thread.name = "NetworkGuard.resolve"
                thread.start()
            }
        } onCancel: {
            // getaddrinfo cannot be interrupted: the caller moves on and the thread finishes alone.
            outcome.finish(.failure(CancellationError()))
        }
    }

    static func blockingLookUp(host: String, port: Int) throws(ResolutionError) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        let savedErrno = errno
        guard status == 0 else {
            throw ResolutionError(host: host, reason: reason(for: status), detail: detail(for: status, errno: savedErrno))
        }
        defer { freeaddrinfo(list) }

        var addresses: [IPAddress] = []
        var node = list
        while let entry = node {
            if let socketAddress = entry.pointee.ai_addr, let address = IPAddress(socketAddress: socketAddress) {
                addresses.append(address)
            }
            node = entry.pointee.ai_next
        }
        return addresses
    }

    private static func reason(for status: Int32) -> ResolutionError.Reason {
        switch status {
        case EAI_NONAME, noDataStatus, addressFamilyStatus: .notFound
        case EAI_AGAIN: .temporaryFailure
        case EAI_FAMILY, EAI_SOCKTYPE, EAI_SERVICE, EAI_BADFLAGS: .invalidRequest
        default: .failed
        }
    }

    private static func detail(for status: Int32, errno savedErrno: Int32) -> String {
        // EAI_SYSTEM means "look at errno"; gai_strerror would only say "System error".
        guard let text: UnsafePointer<CChar> = status == EAI_SYSTEM ? UnsafePointer(strerror(savedErrno)) : gai_strerror(status) else {
            return "error \(status)"
        }
        return String(cString: text)
    }

    // "Name has no addresses" and "no address of the family asked for": both mean not found.
    // glibc and musl declare them only under _GNU_SOURCE, which their Swift modules do not set.
    #if canImport(Darwin)
    private static let noDataStatus = EAI_NODATA
    private static let addressFamilyStatus = EAI_ADDRFAMILY
    #else
    private static let noDataStatus: Int32 = -5
    private static let addressFamilyStatus: Int32 = -9
    #endif
}

/// Hands the lookup's result to the waiting task exactly once, whichever comes first: the thread
/// finishing or the task being cancelled (possibly before the continuation even exists).
private final class LookupOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<[IPAddress], any Error>?
    private var early: Result<[IPAddress], any Error>?
    private var done = false

    /// false when the outcome is already known (cancelled early): the continuation has been
    /// resumed and no lookup should start.
    func attach(_ continuation: CheckedContinuation<[IPAddress], any Error>) -> Bool {
        lock.lock()
        guard let early else {
            self.continuation = continuation
            lock.unlock()
            return true
        }
        done = true
        lock.unlock()
        continuation.resume(with: early)
        return false
    }

    func finish(_ result: Result<[IPAddress], any Error>) {
        lock.lock()
        guard !done, early == nil else {
            lock.unlock()
            return
        }
        guard let continuation else {
            early = result
            lock.unlock()
            return
        }
        done = true
        self.continuation = nil
        lock.unlock()
        continuation.resume(with: result)
    }
}
