#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Processes a test expects gone after their parent ended: orphaned, a survivor is reparented and
/// keeps running, and a killed one may stay a zombie until its new parent reaps it.
public enum Survivors {
    /// Those of `pids` still running (there, and not zombies) after up to `seconds`; each is then
    /// SIGKILLed, so a failing test leaves nothing behind.
    public static func killed(_ pids: [pid_t], after seconds: Double = 5) -> [pid_t] {
        var alive = pids
        let settled = Date().addingTimeInterval(seconds)
        while !alive.isEmpty && Date() < settled {
            alive = alive.filter(isRunning)
            usleep(50_000)
        }
        for pid in alive { kill(pid, SIGKILL) }
        return alive
    }

    public static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")"), stat.index(close, offsetBy: 2) < stat.endIndex else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }
}
