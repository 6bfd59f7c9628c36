import NetworkGuard
import Testing

struct AddressCategoryTests {
    @Test("categories", arguments: [
        ("8.8.8.8", AddressCategory.public),
        ("1.1.1.1", .public),
        ("93.184.216.34", .public),
        ("2606:4700::1111", .public),
        ("2a00:1450:4001:82a::200e", .public),
        ("::ffff:8.8.8.8", .public),

        ("127.0.0.1", .loopback),
        ("127.255.255.254", .loopback),
        ("::1", .loopback),

        ("10.0.0.1", .privateNetwork),
        ("10.255.255.255", .privateNetwork),
        ("172.20.1.1", .privateNetwork),
        ("192.168.0.1", .privateNetwork),
        ("192.168.255.255", .privateNetwork),

        ("169.254.0.1", .linkLocal),
        ("169.254.169.253", .linkLocal),
        ("169.254.255.255", .linkLocal),
        ("fe80::1", .linkLocal),
        ("febf:ffff::1", .linkLocal),

        ("169.254.169.254", .cloudMetadata),
        ("fd00:ec2::254", .cloudMetadata),

        ("100.64.0.1", .carrierGradeNAT),
        ("100.100.100.100", .carrierGradeNAT),

        ("224.0.0.1", .multicast),
        ("239.255.255.250", .multicast),
        ("ff02::1", .multicast),
        ("ff0e::101", .multicast),

        ("0.0.0.0", .unspecified),
        ("::", .unspecified),

        ("0.0.0.1", .thisNetwork),
        ("0.255.255.255", .thisNetwork),

        ("255.255.255.255", .broadcast),
        ("::ffff:255.255.255.255", .broadcast),

        ("240.0.0.1", .reserved),
        ("255.255.255.254", .reserved),
        ("192.0.0.8", .reserved),
        ("198.18.0.1", .reserved),
        ("198.19.255.255", .reserved),
        ("192.0.2.1", .reserved),
        ("198.51.100.7", .reserved),
        ("203.0.113.200", .reserved),
        ("2001:db8::1", .reserved),
        ("2001:db8:ffff::1", .reserved),
        ("100::1", .reserved),
        ("100::ffff:ffff:ffff:ffff", .reserved),
        ("2001:2::1", .reserved),
        ("64:ff9b:1::a00:1", .reserved),
        ("4000::1", .reserved),
        ("::2:0:0:1", .reserved),

        ("fc00::1", .uniqueLocal),
        ("fd12:3456:789a::1", .uniqueLocal),
        ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .uniqueLocal),

        ("fec0::1", .siteLocal),
        ("feff:ffff::1", .siteLocal),
    ])
    func categorizes(_ text: String, _ expected: AddressCategory) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressCategory.categorize(address) == expected)
    }

    @Test("range boundaries", arguments: [
        ("9.255.255.255", AddressCategory.public),
        ("10.0.0.0", .privateNetwork),
        ("11.0.0.0", .public),
        ("172.15.255.255", .public),
        ("172.16.0.0", .privateNetwork),
        ("172.31.255.255", .privateNetwork),
        ("172.32.0.0", .public),
        ("192.167.255.255", .public),
        ("192.169.0.0", .public),
        ("100.63.255.255", .public),
        ("100.64.0.0", .carrierGradeNAT),
        ("100.127.255.255", .carrierGradeNAT),
        ("100.128.0.0", .public),
        ("126.255.255.255", .public),
        ("128.0.0.0", .public),
        ("169.253.255.255", .public),
        ("169.255.0.0", .public),
        ("198.17.255.255", .public),
        ("198.20.0.0", .public),
        ("192.0.1.255", .public),
        ("192.0.3.0", .public),
        ("223.255.255.255", .public),
        ("224.0.0.0", .multicast),
        ("239.255.255.255", .multicast),
        ("240.0.0.0", .reserved),
        ("1.0.0.0", .public),
        ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .reserved),
        ("fe7f:ffff::1", .reserved),
        ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .reserved),
        ("2000::", .public),
        ("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .public),
        ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", .public),
        ("2001:db9::", .public),
        ("100:0:0:1::", .reserved),
        ("fd00:ec2::253", .uniqueLocal),
        ("fd00:ec2::255", .uniqueLocal),
    ])
    func boundaries(_ text: String, _ expected: AddressCategory) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressCategory.categorize(address) == expected)
    }

    // IPv6 transition forms reach the IPv4 host they carry, so they take its category.
    @Test("embedded IPv4", arguments: [
        ("::ffff:127.0.0.1", AddressCategory.loopback),
        ("::ffff:7f00:1", .loopback),
        ("::ffff:169.254.169.254", .cloudMetadata),
        ("::ffff:10.1.2.3", .privateNetwork),
        ("::ffff:0.0.0.0", .unspecified),
        ("::127.0.0.1", .loopback),
        ("::10.0.0.1", .privateNetwork),
        ("::8.8.8.8", .public),
        ("64:ff9b::a00:1", .privateNetwork),
        ("64:ff9b::169.254.169.254", .cloudMetadata),
        ("64:ff9b::127.0.0.1", .loopback),
        ("64:ff9b::8.8.8.8", .public),
        ("2002:c0a8:0101::1", .privateNetwork),
        ("2002:7f00:0001:1234::5", .loopback),
        ("2002:a9fe:a9fe::", .cloudMetadata),
        ("2002:0808:0808::1", .public),
        // Teredo: server 65.54.227.120, client stored inverted: ~3f57:fefe = 192.168.1.1.
        ("2001:0:4136:e378:8000:63bf:3f57:fefe", .privateNetwork),
        // ~80ff:fffe = 127.0.0.1
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", .loopback),
        // ~3fff:fdd2 = 192.0.2.45, the RFC 4380 example client (a documentation address).
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", .reserved),
        // ~f7f7:f7f7 = 8.8.8.8
        ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", .public),
    ])
    func embedded(_ text: String, _ expected: AddressCategory) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressCategory.categorize(address) == expected)
    }

    @Test func phrasesReadAsSentences() {
        for category in AddressCategory.allCases {
            #expect(category.phrase.hasPrefix("a ") || category.phrase.hasPrefix("the "))
            #expect(category.phrase.hasSuffix("address"))
        }
        #expect(AddressCategory.loopback.phrase == "a loopback address")
        #expect(AddressCategory.privateNetwork.rawValue == "private_network")
        #expect(AddressCategory(rawValue: "cloud_metadata") == .cloudMetadata)
    }
}
