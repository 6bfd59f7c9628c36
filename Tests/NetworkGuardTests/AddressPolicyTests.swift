import NetworkGuard
import Testing

struct AddressPolicyTests {
    private func ip(_ text: String) throws -> IPAddress { try #require(IPAddress(text)) }

    @Test func defaultPolicyAllowsOnlyPublicAddresses() throws {
        let policy = AddressPolicy()
        #expect(policy.check(try ip("8.8.8.8")) == .allowed)
        #expect(policy.check(try ip("2606:4700::1111")) == .allowed)
        #expect(policy.check(try ip("127.0.0.1")) == .blocked(.loopback))
        #expect(policy.check(try ip("::ffff:127.0.0.1")) == .blocked(.loopback))
        #expect(policy.check(try ip("169.254.169.254")) == .blocked(.cloudMetadata))
        #expect(policy.check(try ip("10.1.1.1")) == .blocked(.privateNetwork))
        #expect(policy.check(try ip("fd00::1")) == .blocked(.uniqueLocal))
        #expect(!policy.check(try ip("0.0.0.0")).isAllowed)
    }

    @Test func allowedNetworksExemptOnlyTheirOwnAddresses() throws {
        let policy = AddressPolicy(allowNetworks: try CIDR.parseList("127.0.0.0/8, fd00:1234::/32"))
        #expect(policy.check(try ip("127.0.0.2")) == .allowed)
        #expect(policy.check(try ip("::ffff:127.0.0.2")) == .allowed)
        #expect(policy.check(try ip("169.254.169.254")) == .blocked(.cloudMetadata))
        #expect(policy.check(try ip("::1")) == .blocked(.loopback))
        #expect(policy.check(try ip("fd00:1234:5::1")) == .allowed)
        #expect(policy.check(try ip("fd00:1235::1")) == .blocked(.uniqueLocal))
        #expect(policy.check(try ip("10.0.0.1")) == .blocked(.privateNetwork))
        #expect(policy.check(try ip("1.1.1.1")) == .allowed)
    }

    @Test func hostAllowList() throws {
        #expect(AddressPolicy().permitsHost("anything.example"))
        let policy = AddressPolicy(allowHosts: try HostPattern.parseList("images.example.com, *.cdn.example.net"))
        #expect(policy.permitsHost("images.example.com"))
        #expect(policy.permitsHost("EU.cdn.example.net."))
        #expect(!policy.permitsHost("cdn.example.net"))
        #expect(!policy.permitsHost("example.com"))
        #expect(!policy.permitsHost("127.0.0.1"))
        // An empty list is a list: nothing passes.
        #expect(!AddressPolicy(allowHosts: []).permitsHost("images.example.com"))
    }
}
