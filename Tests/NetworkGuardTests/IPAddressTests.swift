#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NetworkGuard
import Testing

struct IPAddressTests {
    @Test("parses and prints canonically", arguments: [
        ("127.0.0.1", "127.0.0.1"),
        ("0.0.0.0", "0.0.0.0"),
        ("255.255.255.255", "255.255.255.255"),
        ("::", "::"),
        ("::1", "::1"),
        ("[::1]", "::1"),
        ("0:0:0:0:0:0:0:1", "::1"),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("2001:0db8:0000:0000:0001:0000:0000:0001", "2001:db8::1:0:0:1"),
        ("::ffff:1.2.3.4", "::ffff:1.2.3.4"),
        ("::FFFF:0102:0304", "::ffff:1.2.3.4"),
        ("64:ff9b::10.0.0.1", "64:ff9b::a00:1"),
        ("fe80::1%eth0", "fe80::1"),
        ("[fe80::1%25eth0]", "fe80::1"),
    ])
    func parses(_ text: String, _ canonical: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.description == canonical)
        #expect(IPAddress(address.description) == address)
    }

    @Test("refuses", arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.04", "0x7f.0.0.1", "2130706433", "127.1",
        " 1.2.3.4", "1.2.3.4 ", "1.2.3.4\0", "[1.2.3.4]", "1.2.3.4%eth0", "-1.2.3.4",
        ":::", "1::2::3", "12345::", "::1%", "[::1", "::1]", "fe80::1/64", "::g", "localhost", "example.com",
    ])
    func refuses(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func bytesAndFamilies() throws {
        let v4 = try #require(IPAddress("192.168.1.2"))
        #expect(v4.isIPv4 && !v4.isIPv6)
        #expect(v4.bytes == [192, 168, 1, 2])
        #expect(v4.value == .v4(0xC0A8_0102))
        #expect(IPAddress(bytes: [192, 168, 1, 2]) == v4)

        let v6 = try #require(IPAddress("2001:db8::ff00:42:8329"))
        #expect(v6.isIPv6)
        #expect(v6.bytes == [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0xff, 0x00, 0, 0x42, 0x83, 0x29])
        #expect(v6.value == .v6(high: 0x2001_0db8_0000_0000, low: 0x0000_ff00_0042_8329))
        #expect(IPAddress(bytes: v6.bytes) == v6)
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)

        // The mapped form is a different value: it is what would be dialled.
        #expect(IPAddress("::ffff:1.2.3.4") != IPAddress("1.2.3.4"))
    }

    @Test func urlHostBracketsIPv6Only() throws {
        #expect(try #require(IPAddress("10.0.0.1")).urlHost == "10.0.0.1")
        #expect(try #require(IPAddress("::1")).urlHost == "[::1]")
        #expect(try #require(IPAddress("fe80::1%lo")).urlHost == "[fe80::1]")
    }

    @Test func readsSocketAddresses() throws {
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = UInt16(8080).bigEndian
        v4.sin_addr.s_addr = UInt32(0x7F00_0002).bigEndian
        let fromV4 = withUnsafePointer(to: &v4) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress(socketAddress: $0) }
        }
        #expect(fromV4 == IPAddress("127.0.0.2"))

        var v6 = sockaddr_in6()
        v6.sin6_family = sa_family_t(AF_INET6)
        let expected = try #require(IPAddress("2606:4700::1111"))
        withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: expected.bytes) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { out in
            withUnsafeBytes(of: &v6) { out.copyMemory(from: $0) }
        }
        #expect(IPAddress(socketAddress: storage) == expected)

        var unix = sockaddr_storage()
        unix.ss_family = sa_family_t(AF_UNIX)
        #expect(IPAddress(socketAddress: unix) == nil)
    }
}
