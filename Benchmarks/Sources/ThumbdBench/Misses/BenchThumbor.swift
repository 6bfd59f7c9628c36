import Foundation

/// thumbor 7 as an HTTP server, the peer of `thumbd-bench misses`: its defaults (the HTTP loader, the
/// PIL engine, originals kept by its file storage, no result storage) with the settings thumbd has by
/// default made the same: JPEG quality 82 and EXIF orientation applied. One process per core
/// (`--processes`), as thumbor's own docs advise for a multi-core server.
enum BenchThumbor {
    static let installHint = "make crop-deps (thumbor in .build/thumbor-venv), or --python naming an interpreter that has thumbor"

    /// The `thumbor` script beside `python` (a virtual environment's bin folder).
    static func executable(python: String) -> String? {
        let thumbor = ((python as NSString).deletingLastPathComponent as NSString).appendingPathComponent("thumbor")
        return FileManager.default.isExecutableFile(atPath: thumbor) ? thumbor : nil
    }

    static func configuration(storage: String, quality: Int) -> String {
        """
        LOADER = 'thumbor.loaders.http_loader'
        STORAGE = 'thumbor.storages.file_storage'
        FILE_STORAGE_ROOT_PATH = '\(storage)'
        RESULT_STORAGE = None
        ENGINE = 'thumbor.engines.pil'
        QUALITY = \(quality)
        RESPECT_ORIENTATION = True
        ALLOW_UNSAFE_URL = True
        AUTO_WEBP = False

        """
    }

    static func start(executable: String, processes: Int, quality: Int, directory: String) throws -> BenchServer {
        let port = try BenchProc.freePort()
        let storage = (directory as NSString).appendingPathComponent("storage")
        try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true)
        let file = (directory as NSString).appendingPathComponent("thumbor.conf")
        try configuration(storage: storage, quality: quality).write(toFile: file, atomically: true, encoding: .utf8)
        let process = try BenchServeProcess(
            name: "thumbor", program: executable,
            arguments: ["--ip", "127.0.0.1", "--port", String(port), "--conf", file, "--log-level", "error",
                        "--processes", String(processes)],
            environment: ProcessInfo.processInfo.environment,
            stdoutPath: (directory as NSString).appendingPathComponent("thumbor.log"))
        let server = BenchServer(process: process, port: port)
        try server.waitUntilReady(path: "/healthcheck")
        return server
    }

    /// thumbor's path for a centre crop of `url` (scheme left out: its HTTP loader adds it) to the box.
    static func path(_ url: String, shape: BenchShape) -> String {
        let bare = url.hasPrefix("http://") ? String(url.dropFirst("http://".count)) : url
        return "/unsafe/\(shape.width)x\(shape.height)/\(bare)"
    }
}
