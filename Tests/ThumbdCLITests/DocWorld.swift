import ChildProcess
import Foundation
import ImageCore
import TestSupport

struct DocWorldError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What the docs' examples run against: a scratch folder holding the files they name, an origin on
/// 127.0.0.1 standing in for every example host, and a `thumbd serve` on 127.0.0.1 with an empty
/// cache. Nothing here reaches another machine.
final class DocWorld {
    static let commandTimeout = 120.0

    let folder: URL
    let sandbox: URL
    let cacheDirectory: URL
    let origin: DocOrigin
    let daemonPort: Int
    private var daemon: BackgroundProcess?

    init() throws {
        folder = try CLI.temporaryDirectory()
        sandbox = folder.appendingPathComponent("work")
        cacheDirectory = folder.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
        try Self.writeFiles(into: sandbox)
        origin = try DocOrigin(folder: folder, photo: sandbox.appendingPathComponent("photo.jpg"),
                               png: sandbox.appendingPathComponent("logo.png"))
        try Self.writePageFiles(into: sandbox, origin: origin.port)
        daemonPort = try BackgroundProcess.freePort()
        try startDaemon()
    }

    /// The settings every example sees: the daemon's address and cache, and loopback allowed as an
    /// origin (the docs' example hosts are served from 127.0.0.1).
    var environment: [String: String] {
        ["THUMBD_LISTEN": "127.0.0.1:\(daemonPort)",
         "THUMBD_CACHE_DIR": cacheDirectory.path,
         "THUMBD_ALLOW_NETWORKS": "127.0.0.1/32",
         "HOME": folder.path]
    }

    func startDaemon() throws {
        daemon = try BackgroundProcess(name: "thumbd serve", program: CLI.executable, arguments: ["serve"],
                                       environment: environment,
                                       stdoutPath: folder.appendingPathComponent("daemon.log").path)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if try ChildProcess.run("curl", ["-sf", "http://127.0.0.1:\(daemonPort)/readyz"], timeoutSeconds: 5).status == 0 { return }
            guard daemon?.isRunning == true else { break }
            usleep(100_000)
        }
        throw DocWorldError( "thumbd serve did not become ready: \(daemon?.stderrTail() ?? "")")
    }

    func stopDaemon() throws {
        let status = daemon?.stop(SIGTERM, grace: 30)
        daemon = nil
        guard status == 0 else { throw DocWorldError( "thumbd serve exited \(status.map(String.init) ?? "-") at SIGTERM") }
    }

    /// One example, in /bin/sh in the scratch folder, with the built thumbd first on PATH and curl
    /// failing on 4xx and 5xx answers.
    func shell(_ command: String) throws -> ChildProcessResult {
        let bin = URL(fileURLWithPath: CLI.executable).deletingLastPathComponent().path
        let exports = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quoted($0.value))" }.joined(separator: " ")
        let script = """
            cd \(Self.quoted(sandbox.path)) || exit 97
            export PATH=\(Self.quoted(bin)):"$PATH" \(exports)
            curl() { command curl --fail-with-body --max-time 60 "$@"; }
            \(command)
            """
        return try ChildProcess.run("/bin/sh", ["-c", script], timeoutSeconds: Self.commandTimeout)
    }

    func stop() {
        if let daemon { _ = daemon.stop(SIGTERM, grace: 30) }
        origin.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// The files docs/CONTRIBUTING-docs.md promises. At most five JPEGs at the top, since
    /// `thumbd prepare *.jpg` takes at most five photos.
    private static func writeFiles(into folder: URL) throws {
        func jpeg(_ name: String, width: Int, height: Int, seed: UInt64, orientation: Orientation = .up) throws {
            let photo = PhonePhoto.synthetic(width: width, height: height, seed: seed)
            try Data(PhonePhoto.jpeg(upright: photo, orientation: orientation)).write(to: folder.appendingPathComponent(name))
        }
        try jpeg("photo.jpg", width: 1200, height: 900, seed: 1)
        try jpeg("product.jpg", width: 900, height: 1200, seed: 2)
        for (index, name) in ["IMG_01.jpg", "IMG_02.jpg", "IMG_03.jpg"].enumerated() {
            try jpeg(name, width: 1600, height: 1200, seed: 10 + UInt64(index), orientation: index == 0 ? .right : .up)
        }
        let shots = folder.appendingPathComponent("shots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        for index in 1...3 {
            let photo = PhonePhoto.synthetic(width: 800, height: 600, seed: 20 + UInt64(index))
            try Data(PhonePhoto.jpeg(upright: photo, orientation: .up)).write(to: shots.appendingPathComponent("shot-\(index).jpg"))
        }
        let images = TestPaths.testImages
        for (source, name) in [("png/gradient-rgba8.png", "logo.png"), ("png/gradient-rgba8.png", "product.png"),
                               ("heic/opaque_24x16.heic", "photo.heic")] {
            try FileManager.default.copyItem(at: images.appendingPathComponent(source), to: folder.appendingPathComponent(name))
        }
        try Data(#"{"title":"Lamp","price":12000}"#.utf8).write(to: folder.appendingPathComponent("product.json"))
        try Data("""
            presets:
              grid: { size: 240, fit: cover, gravity: smart, format: auto }
              zoom: { size: 1200, fit: contain, trim: true, format: auto, quality: 85 }

            """.utf8).write(to: folder.appendingPathComponent("presets.yaml"))
        // A settings file with the typo docs/configuration.md shows being refused.
        try Data("cache:\n  disk_max_gib: 500\n".utf8).write(to: folder.appendingPathComponent("typo.yaml"))
    }

    /// A product-list page whose photos are on the origin.
    private static func writePageFiles(into folder: URL, origin port: Int) throws {
        let base = "http://127.0.0.1:\(port)"
        let page = """
            {"page_no":1,"pages":[{"thumbnail":"\(base)/list/1.jpg","images":[{"url":"\(base)/list/1-back.jpg"}]},\
            {"thumbnail":"\(base)/list/2.jpg","images":[]}],"has_next":false}
            """
        try Data(page.utf8).write(to: folder.appendingPathComponent("page-1.json"))
    }
}

/// The internet of the docs: an HTTP origin on 127.0.0.1 (Python's http.server) that answers the
/// scratch photo for any path (a PNG for `.png`), and a product-list page of three for `/products`.
final class DocOrigin {
    let port: Int
    private let process: BackgroundProcess

    static let script = #"""
        import http.server, json, sys, urllib.parse
        photo, png, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
        class Origin(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                if url.path.endswith("/products"):
                    number = int(urllib.parse.parse_qs(url.query).get("page_no", ["1"])[0])
                    base = "http://" + self.headers["Host"]
                    items = [{"thumbnail": f"{base}/page{number}/{i}.jpg",
                              "images": [{"url": f"{base}/page{number}/{i}-detail.jpg"}]} for i in range(3)]
                    body, kind = json.dumps({"page_no": number, "pages": items, "has_next": number < 3}).encode(), "application/json"
                elif url.path.endswith(".png"):
                    body, kind = open(png, "rb").read(), "image/png"
                else:
                    body, kind = open(photo, "rb").read(), "image/jpeg"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        http.server.ThreadingHTTPServer(("127.0.0.1", port), Origin).serve_forever()
        """#

    init(folder: URL, photo: URL, png: URL) throws {
        port = try BackgroundProcess.freePort()
        let scriptPath = folder.appendingPathComponent("origin.py")
        try Data(Self.script.utf8).write(to: scriptPath)
        guard let python = BackgroundProcess.which("python3") else { throw DocWorldError( "python3 is not installed") }
        process = try BackgroundProcess(name: "doc origin", program: python,
                                        arguments: [scriptPath.path, photo.path, png.path, String(port)],
                                        environment: ["PATH": "/usr/bin:/bin"],
                                        stdoutPath: folder.appendingPathComponent("origin.log").path)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if try ChildProcess.run("curl", ["-sf", "-o", "/dev/null", "http://127.0.0.1:\(port)/p.jpg"], timeoutSeconds: 5).status == 0 { return }
            usleep(100_000)
        }
        throw DocWorldError( "the docs' origin did not start: \(process.stderrTail())")
    }

    func stop() { _ = process.stop(SIGTERM, grace: 5) }
}
