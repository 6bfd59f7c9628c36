import ChildProcess
import Digests
import Foundation
import Testing

/// thumbd's SHA-256 and HMAC-SHA256 (the system's libcrypto through CDigest) against the published
/// vectors and, on random inputs of every length around the block boundaries, against Python's
/// hashlib and hmac.
@Suite("SHA-256 and HMAC-SHA256")
struct DigestsTests {
    @Test("SHA-256: FIPS 180-4's vectors, and a message that needs a second block of padding")
    func sha256Vectors() {
        #expect(SHA256Digest(of: [UInt8]()).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest(of: "abc").hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Digest(of: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hex
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256Digest(of: [UInt8](repeating: 0x61, count: 64)).hex == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
        #expect(SHA256Digest(of: [UInt8](repeating: 0x61, count: 1_000_000)).hex
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("The words, the bytes and the hex are one value; text hashes as its UTF-8")
    func representations() {
        let digest = SHA256Digest(of: "abc")
        #expect(digest.w0 == 0xba78_16bf_8f01_cfea && digest.w3 == 0xb410_ff61_f200_15ad)
        #expect(digest.bytes.count == 32 && digest.bytes.first == 0xba && digest.bytes.last == 0xad)
        #expect(digest.bytes.map { String(format: "%02x", $0) }.joined() == digest.hex)
        #expect(SHA256Digest(of: "é") == SHA256Digest(of: [0xC3, 0xA9]))
        #expect(digest.matchesInConstantTime(SHA256Digest(of: Array("abc".utf8))))
        #expect(!digest.matchesInConstantTime(SHA256Digest(of: "abd")))
        #expect(SHA256Digest(w0: digest.w0, w1: digest.w1, w2: digest.w2, w3: digest.w3 ^ 1) != digest)
    }

    /// RFC 4231's test cases 1, 2, 3, 4, 6 and 7 (5 checks a truncated code): short, long (131-byte,
    /// hashed first) and binary keys.
    @Test("HMAC-SHA256: RFC 4231's vectors")
    func hmacVectors() {
        func bytes(_ hex: String) -> [UInt8] {
            var out: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                out.append(UInt8(hex[index..<next], radix: 16)!)
                index = next
            }
            return out
        }
        let cases: [(key: [UInt8], data: [UInt8], code: String)] = [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
             "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
             "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
             "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
            ([UInt8](repeating: 0xaa, count: 131),
             Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
             "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        ]
        for (number, test) in cases.enumerated() {
            let code = HMACSHA256.code(for: test.data, key: test.key)
            #expect(code.map { String(format: "%02x", $0) }.joined() == test.code, "case \(number)")
        }
    }

    /// Lengths 0 to 200 cover one, two and four blocks and every padding boundary (55, 56, 63, 64);
    /// keys up to 150 bytes cover the block-sized and hashed-first keys.
    @Test("Random messages and keys of every length near the block size: the same digests and codes as Python's hashlib and hmac",
          .enabled(if: ChildProcess.isInstalled("python3"), "needs python3"))
    func agreesWithPython() throws {
        var generator = SystemRandomNumberGenerator()
        var lines: [String] = []
        var ours: [String] = []
        for length in 0...200 {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let key = (0..<(length * 3 % 151)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            lines.append(Data(message).base64EncodedString() + " " + Data(key).base64EncodedString())
            let code = HMACSHA256.code(for: message, key: key).map { String(format: "%02x", $0) }.joined()
            ours.append(SHA256Digest(of: message).hex + " " + code)
        }
        let script = """
        import base64, hashlib, hmac, sys
        for line in sys.stdin.read().splitlines():
            message, key = (base64.b64decode(part) for part in line.split(" "))
            print(hashlib.sha256(message).hexdigest(), hmac.new(key, message, hashlib.sha256).hexdigest())
        """
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("digests-\(UUID().uuidString).txt")
        try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: input) }
        let result = try ChildProcess.run("python3", ["-c", script], timeoutSeconds: 60, standardInput: input.path)
        try #require(result.status == 0, "python3: \(result.stderrText)")
        let theirs = result.stdoutText.split(separator: "\n").map(String.init)
        try #require(theirs.count == ours.count, "python3 answered \(theirs.count) lines for \(ours.count)")
        for (length, (mine, python)) in zip(ours, theirs).enumerated() {
            #expect(mine == python, "length \(length)")
        }
    }
}
