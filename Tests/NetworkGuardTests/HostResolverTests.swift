import NetworkGuard
import Testing

struct HostResolverTests {
    let resolver = HostResolver()

    @Test func localhostIsLoopback() async throws {
        let addresses = try await resolver.resolve(host: "localhost", port: 80)
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { AddressCategory.categorize($0) == .loopback })
        #expect(Set(addresses).count == addresses.count)
    }

    @Test("IP literals skip DNS", arguments: [
        ("127.0.0.1", "127.0.0.1"),
        ("[::1]", "::1"),
        ("::1", "::1"),
        ("[fe80::1%25lo]", "fe80::1"),
        ("203.0.113.7", "203.0.113.7"),
    ])
    func literals(_ host: String, _ expected: String) async throws {
        let addresses = try await resolver.resolve(host: host, port: 443)
        #expect(addresses == [try #require(IPAddress(expected))])
    }

    // getaddrinfo reads these with inet_aton; they must come out as the address they mean.
    @Test("odd IPv4 spellings", arguments: ["2130706433", "0x7f.1", "127.1", "0177.0.0.1", "0x7f000001"])
    func oddSpellings(_ host: String) async throws {
        #expect(IPAddress(host) == nil)
        let addresses = try await resolver.resolve(host: host, port: 80)
        #expect(addresses == [try #require(IPAddress("127.0.0.1"))])
    }

    @Test func unknownNameIsAResolutionError() async throws {
        let error = try await #require(throws: ResolutionError.self) {
            try await resolver.resolve(host: "nonexistent.invalid", port: 80)
        }
        #expect(error.host == "nonexistent.invalid")
        #expect(error.reason != .invalidRequest)
        #expect(!error.detail.isEmpty)
        #expect(error.description.hasPrefix("cannot resolve nonexistent.invalid: "))
    }

    // C would stop at the NUL and look up a different name from the one the allow-list saw.
    @Test("refuses malformed hosts", arguments: ["", "evil.test\u{0}.example.com", "a b.example", "tab\t.example", "[not-ip]x\n"])
    func malformedHosts(_ host: String) async throws {
        let error = try await #require(throws: ResolutionError.self) {
            try await resolver.resolve(host: host, port: 80)
        }
        #expect(error.reason == .invalidRequest)
    }

    @Test func refusesBadPorts() async throws {
        for (host, port) in [("localhost", -1), ("localhost", 65536), ("127.0.0.1", 70000)] {
            let error = try await #require(throws: ResolutionError.self) {
                try await resolver.resolve(host: host, port: port)
            }
            #expect(error.reason == .invalidRequest)
        }
    }

    @Test func cancelledLookupThrowsCancellation() async throws {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await HostResolver().resolve(host: "localhost", port: 80)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func manyLookupsAtOnce() async throws {
        // More lookups than cooperative threads: each blocks its own thread, not the pool.
        let results = try await withThrowingTaskGroup(of: [IPAddress].self) { group in
            for _ in 0..<32 {
                group.addTask { try await HostResolver().resolve(host: "localhost", port: 80) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 32)
        #expect(results.allSatisfy { !$0.isEmpty })
    }

    @Test func fixedTableDeduplicatesAndNormalizes() async throws {
        let a = try #require(IPAddress("10.0.0.1")), b = try #require(IPAddress("::1"))
        let fixed = HostResolver.fixed(["Origin.Test": [a, b, a, b]])
        #expect(try await fixed.resolve(host: "origin.test.", port: 80) == [a, b])
        #expect(try await fixed.resolve(host: "8.8.8.8", port: 80) == [try #require(IPAddress("8.8.8.8"))])
        await #expect(throws: ResolutionError.self) { try await fixed.resolve(host: "other.test", port: 80) }
    }
}
