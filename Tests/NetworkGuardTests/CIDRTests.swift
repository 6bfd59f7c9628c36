import NetworkGuard
import Testing

struct CIDRTests {
    @Test("parses", arguments: [
        ("10.0.0.0/8", "10.0.0.0/8"),
        ("10.1.2.3/8", "10.0.0.0/8"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("192.168.1.5", "192.168.1.5/32"),
        ("192.168.1.5/32", "192.168.1.5/32"),
        ("fd00::/8", "fd00::/8"),
        ("FE80::1/10", "fe80::/10"),
        ("::1", "::1/128"),
        ("[::1]", "::1/128"),
        ("::/0", "::/0"),
        ("2001:db8::/128", "2001:db8::/128"),
    ])
    func parses(_ text: String, _ canonical: String) throws {
        let cidr = try #require(CIDR(text))
        #expect(cidr.description == canonical)
        #expect(CIDR(cidr.description) == cidr)
    }

    @Test("refuses", arguments: [
        "10.0.0.0/33", "1.2.3/8", "fe80::/129", "abc", "", "/8", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8",
        "10.0.0.0/ 8", "10.0.0.0/8/8", "10.0.0.0/x", "::/1280", "10.0.0.0 /8", "2130706433/8",
    ])
    func refuses(_ text: String) {
        #expect(CIDR(text) == nil)
    }

    @Test("contains", arguments: [
        ("10.0.0.0/8", "10.0.0.0", true),
        ("10.0.0.0/8", "10.255.255.255", true),
        ("10.0.0.0/8", "11.0.0.0", false),
        ("10.0.0.0/8", "9.255.255.255", false),
        ("172.16.0.0/12", "172.31.255.255", true),
        ("172.16.0.0/12", "172.32.0.0", false),
        ("192.168.1.5", "192.168.1.5", true),
        ("192.168.1.5", "192.168.1.6", false),
        ("0.0.0.0/0", "203.0.113.9", true),
        // An IPv4 network holds the mapped IPv6 spelling of its addresses, nothing else in IPv6.
        ("127.0.0.0/8", "::ffff:127.0.0.2", true),
        ("127.0.0.0/8", "::ffff:128.0.0.1", false),
        ("127.0.0.0/8", "::127.0.0.2", false),
        ("127.0.0.0/8", "::1", false),
        ("0.0.0.0/0", "2606:4700::1111", false),
        ("fd00::/8", "fd12:3456::1", true),
        ("fd00::/8", "fc00::1", false),
        ("fe80::/10", "febf:ffff::1", true),
        ("fe80::/10", "fec0::1", false),
        ("2001:db8::/64", "2001:db8::ffff:ffff:ffff:ffff", true),
        ("2001:db8::/64", "2001:db8:0:1::", false),
        ("2001:db8::/96", "2001:db8::1:2", true),
        ("::1", "::1", true),
        ("::1", "::2", false),
        ("::ffff:0:0/96", "10.1.2.3", true),
        ("::ffff:10.0.0.0/104", "10.9.9.9", true),
        ("::ffff:10.0.0.0/104", "11.0.0.1", false),
        ("fd00::/8", "10.0.0.1", false),
    ])
    func contains(_ network: String, _ address: String, _ expected: Bool) throws {
        let cidr = try #require(CIDR(network))
        let ip = try #require(IPAddress(address))
        #expect(cidr.contains(ip) == expected)
    }

    @Test func parsesLists() throws {
        let list = try CIDR.parseList(" 10.0.0.0/8,fd00::/8 ,, \t127.0.0.1 ,")
        #expect(list.map(\.description) == ["10.0.0.0/8", "fd00::/8", "127.0.0.1/32"])
        #expect(try CIDR.parseList("").isEmpty)
        #expect(try CIDR.parseList(" , ").isEmpty)
    }

    @Test func listErrorsNameTheEntry() {
        #expect(throws: CIDRParseError(entry: "10.0.0.0/33")) { try CIDR.parseList("127.0.0.0/8, 10.0.0.0/33 ,::1") }
        do {
            _ = try CIDR.parseList("fd00::/8,abc")
            Issue.record("expected an error")
        } catch {
            #expect(error.entry == "abc")
            #expect(error.description.contains("'abc'"))
        }
    }
}
