import NetworkGuard
import Testing

struct GuardedDestinationTests {
    private func ip(_ text: String) throws -> IPAddress { try #require(IPAddress(text)) }

    private func blocked(_ host: String, _ policy: AddressPolicy = AddressPolicy(),
                         resolver: HostResolver = HostResolver()) async throws -> DestinationBlocked {
        try await #require(throws: DestinationBlocked.self) {
            try await policy.resolveGuarded(host: host, port: 80, resolver: resolver)
        }
    }

    @Test func loopbackLiteralIsBlockedWithAHint() async throws {
        let error = try await blocked("127.0.0.2")
        #expect(error.host == "127.0.0.2")
        #expect(error.address == (try ip("127.0.0.2")))
        #expect(error.category == .loopback)
        #expect(error.description == "127.0.0.2 is a loopback address; allow it with allow_networks")
    }

    @Test func bracketedIPv6LiteralIsBlocked() async throws {
        let error = try await blocked("[::1]")
        #expect(error.reason == .address(try ip("::1"), .loopback))
        #expect(error.description == "::1 is a loopback address; allow it with allow_networks")
    }

    @Test func namesShowWhatTheyResolvedTo() async throws {
        let error = try await blocked("localhost")
        #expect(error.category == .loopback)
        #expect(error.description.hasPrefix("localhost: "))
        #expect(error.description.hasSuffix(" is a loopback address; allow it with allow_networks"))
    }

    // The resolver reads these as 127.0.0.1; checking its answer, not the text, is what catches them.
    @Test("odd IPv4 spellings are caught", arguments: ["2130706433", "0x7f.1", "127.1", "0x7f000001"])
    func oddSpellings(_ host: String) async throws {
        let error = try await blocked(host)
        #expect(error.reason == .address(try ip("127.0.0.1"), .loopback))
        #expect(error.description == "\(host): 127.0.0.1 is a loopback address; allow it with allow_networks")
    }

    @Test func metadataIsBlockedInEverySpelling() async throws {
        for host in ["169.254.169.254", "[::ffff:169.254.169.254]", "[64:ff9b::a9fe:a9fe]", "2852039166", "[fd00:ec2::254]"] {
            #expect(try await blocked(host).category == .cloudMetadata, "\(host)")
        }
    }

    @Test func allowedNetworkPinsTheAddress() async throws {
        let policy = AddressPolicy(allowNetworks: [try #require(CIDR("127.0.0.0/8"))])
        let destination = try await policy.resolveGuarded(host: "127.0.0.2", port: 8080)
        #expect(destination == GuardedDestination(host: "127.0.0.2", port: 8080, address: try ip("127.0.0.2")))
        #expect(try await blocked("169.254.169.254", policy).category == .cloudMetadata)

        let viaName = try await policy.resolveGuarded(host: "localhost", port: 80)
        #expect(viaName.host == "localhost")
        #expect(AddressCategory.categorize(viaName.address) == .loopback)
    }

    @Test func blockedAnswersAreSkippedAndTheFirstAllowedPinned() async throws {
        let resolver = HostResolver.fixed([
            "mixed.test": [try ip("10.0.0.1"), try ip("169.254.169.254"), try ip("93.184.216.34"), try ip("1.1.1.1")],
            "internal.test": [try ip("10.0.0.5"), try ip("::1"), try ip("fd00::5")],
        ])
        let destination = try await AddressPolicy().resolveGuarded(host: "mixed.test", port: 443, resolver: resolver)
        #expect(destination.address == (try ip("93.184.216.34")))
        #expect(destination.host == "mixed.test" && destination.port == 443)

        let error = try await blocked("internal.test", resolver: resolver)
        #expect(error.reason == .address(try ip("10.0.0.5"), .privateNetwork))
        #expect(error.description == "internal.test: 10.0.0.5 is a private network address; allow it with allow_networks")
    }

    @Test func hostAllowListIsCheckedBeforeResolving() async throws {
        let policy = AddressPolicy(allowHosts: [try #require(HostPattern("*.example.com"))])
        // Not in the table either: a lookup would have thrown ResolutionError instead.
        let empty = HostResolver.fixed([:])
        let error = try await blocked("unknown.test", policy, resolver: empty)
        #expect(error.reason == .hostNotAllowed)
        #expect(error.address == nil && error.category == nil)
        #expect(error.description == "unknown.test is not on the allow_hosts list")
        #expect(try await blocked("127.0.0.1", policy).reason == .hostNotAllowed)
        #expect(try await blocked("example.com", policy, resolver: empty).reason == .hostNotAllowed)

        // Listed hosts still go through the address check.
        let resolver = HostResolver.fixed(["img.example.com": [try ip("192.168.1.1")], "cdn.example.com": [try ip("8.8.4.4")]])
        #expect(try await blocked("img.example.com", policy, resolver: resolver).category == .privateNetwork)
        let allowed = try await policy.resolveGuarded(host: "CDN.example.com", port: 80, resolver: resolver)
        #expect(allowed.address == (try ip("8.8.4.4")))
    }

    @Test func unresolvableHostIsAResolutionError() async throws {
        await #expect(throws: ResolutionError.self) {
            try await AddressPolicy().resolveGuarded(host: "nonexistent.invalid", port: 80)
        }
    }
}
