import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a benchmark of hits over HTTP (`serve`, `fleet`) finds before it starts anything: the
/// programs it runs and a world-readable scratch folder with a `logs` folder in it.
struct BenchHitSetUp {
    let executable: String
    let wrk: String
    let python: String
    /// Nil when nginx is not installed and the benchmark can go without it.
    let nginx: String?
    let scratch: BenchScratch
    let logs: String

    init(requiringNginx: Bool) throws {
        executable = try ThumbdExecutable.required()
        guard let wrk = BenchProc.which("wrk") else { throw ValidationErrorMessage("wrk is not installed: \(BenchWrk.installHint)") }
        let python = try Self.python()
        let nginx = BenchProc.which("nginx")
        if requiringNginx && nginx == nil { throw ValidationErrorMessage("nginx is not installed: \(BenchNginx.installHint)") }
        (self.wrk, self.python, self.nginx) = (wrk, python, nginx)
        scratch = try BenchScratch()
        // World-readable: nginx started as root hands its workers to another user (`nobody`).
        chmod(scratch.root, 0o755)
        logs = try scratch.folder("logs")
    }

    /// python3, which serves the photos as the origin.
    static func python() throws -> String {
        guard let python = BenchProc.which("python3") else {
            throw ValidationErrorMessage("python3 is not installed (it serves the photos as the origin): apt-get install python3")
        }
        return python
    }

    /// Removes the scratch folder, or with `keep` says where it is.
    func finish(keep: Bool) {
        if keep {
            FileHandle.standardError.write(Data("bench: kept the scratch folder \(scratch.root) (logs in \(logs))\n".utf8))
        } else {
            scratch.remove()
        }
    }
}

/// A runner of hits over HTTP: its programs and folders come from its `setUp`.
protocol BenchHitRunning {
    var setUp: BenchHitSetUp { get }
}

extension BenchHitRunning {
    var executable: String { setUp.executable }
    var wrk: String { setUp.wrk }
    var python: String { setUp.python }
    var scratch: BenchScratch { setUp.scratch }
    var logs: String { setUp.logs }
}
