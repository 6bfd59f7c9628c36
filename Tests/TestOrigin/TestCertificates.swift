import ChildProcess
import Foundation

/// Certificates for HTTPS test origins, made at run time with the `openssl` command, so no key
/// is kept in the repository and none expires while the tests sit unchanged.
///
/// Every leaf names `localhost`, and only that name. `good` is signed by `caFile`, which a client must
/// be told to trust; `selfSigned` signs itself; `expired` is signed by the same CA but was valid
/// only in January 2020, so the expiry is its one fault. `goodWithAddress` is `good` naming
/// `127.0.0.1` too: NIOSSL takes an address in a certificate as matching the connection's address
/// whatever host name was asked for, so only that one shows it.
public struct TestCertificates: Sendable {
    public let directory: URL
    /// The test CA's certificate (PEM): the trust root a client adds.
    public let caFile: String
    public let good: TestOriginTLS
    public let goodWithAddress: TestOriginTLS
    public let selfSigned: TestOriginTLS
    public let expired: TestOriginTLS

    /// Makes a CA and the three leaves in a new temporary directory (about a second of openssl).
    public static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-test-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let maker = Maker(directory: directory)
        try maker.makeCA()
        let good = try maker.makeLeaf("good", dates: .days(2))
        let goodWithAddress = try maker.makeLeaf("good-with-address", dates: .days(2), extensions: "leaf-with-address.ext")
        let expired = try maker.makeLeaf("expired", dates: .between("20200101000000Z", "20200201000000Z"))
        let selfSigned = try maker.makeSelfSigned("self-signed")
        return TestCertificates(directory: directory, caFile: maker.path("ca.pem"), good: good, goodWithAddress: goodWithAddress,
                                selfSigned: selfSigned, expired: expired)
    }

    /// Removes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The openssl invocations, one file per step, all in one directory.
private struct Maker {
    enum Dates {
        case days(Int)
        /// `openssl ca` is the one command of OpenSSL 3.0 that takes explicit validity dates.
        case between(String, String)
    }

    let directory: URL

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// P-256 keys: made in milliseconds, unlike RSA.
    private var newKey: [String] { ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"] }

    func makeCA() throws {
        try openssl(["req", "-x509"] + newKey + ["-keyout", path("ca-key.pem"), "-out", path("ca.pem"), "-days", "2",
                     "-subj", "/CN=thumbd test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        let leaf = "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
        try write("leaf.ext", "subjectAltName=DNS:localhost\n" + leaf)
        try write("leaf-with-address.ext", "subjectAltName=DNS:localhost,IP:127.0.0.1\n" + leaf)
        // The smallest configuration `openssl ca` accepts: a database file, a serial, any subject.
        try write("index.txt", "")
        try write("serial", "01\n")
        try write("ca.cnf", """
            [ca]
            default_ca = test
            [test]
            database = \(path("index.txt"))
            new_certs_dir = \(directory.path)
            serial = \(path("serial"))
            default_md = sha256
            policy = anything
            unique_subject = no
            [anything]
            commonName = supplied

            """)
    }

    func makeLeaf(_ name: String, dates: Dates, extensions: String = "leaf.ext") throws -> TestOriginTLS {
        try openssl(["req", "-new"] + newKey + ["-keyout", path("\(name)-key.pem"), "-out", path("\(name).csr"), "-subj", "/CN=localhost"])
        switch dates {
        case .days(let days):
            try openssl(["x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.pem"), "-CAkey", path("ca-key.pem"),
                         "-set_serial", "\(Int.random(in: 1000...1_000_000))", "-days", "\(days)",
                         "-extfile", path(extensions), "-out", path("\(name).pem")])
        case .between(let start, let end):
            try openssl(["ca", "-batch", "-notext", "-config", path("ca.cnf"), "-cert", path("ca.pem"), "-keyfile", path("ca-key.pem"),
                         "-in", path("\(name).csr"), "-out", path("\(name).pem"), "-startdate", start, "-enddate", end,
                         "-extfile", path(extensions)])
        }
        return TestOriginTLS(certificateChainFile: path("\(name).pem"), privateKeyFile: path("\(name)-key.pem"))
    }

    func makeSelfSigned(_ name: String) throws -> TestOriginTLS {
        try openssl(["req", "-x509"] + newKey + ["-keyout", path("\(name)-key.pem"), "-out", path("\(name).pem"), "-days", "2",
                     "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"])
        return TestOriginTLS(certificateChainFile: path("\(name).pem"), privateKeyFile: path("\(name)-key.pem"))
    }

    private func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path(name)))
    }

    private func openssl(_ arguments: [String]) throws {
        let result = try ChildProcess.run("openssl", arguments, timeoutSeconds: 60)
        guard result.status == 0 else {
            throw OpenSSLFailed(description: "openssl \(arguments.first ?? "") failed (\(result.status)): \(result.stderrText)")
        }
    }
}

struct OpenSSLFailed: Error, CustomStringConvertible {
    let description: String
}
