#if canImport(Glibc)
import Glibc
#endif
import ChildProcess
import Foundation

// Stops itself with SIGTERM while it holds a scratch folder and children (one that ignores SIGTERM),
// and keeps starting children and removing its folder as the stop runs, as a busy benchmark does.
// It prints what happened; TerminationTests checks the process table and the disk against it.
// Usage: thumbd-termination-probe FOLDER

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let folder = CommandLine.arguments[1]
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
_ = FileManager.default.createFile(atPath: (folder as NSString).appendingPathComponent("work"), contents: Data("x".utf8))
Termination.stopChildrenOnSignals(grace: 1)
Termination.removeOnSignal(folder)

func start(_ name: String, _ program: String, _ arguments: [String]) throws -> BackgroundProcess {
    let child = try BackgroundProcess(name: name, program: program, arguments: arguments,
                                      environment: ProcessInfo.processInfo.environment, stdoutPath: "/dev/null")
    say("started \(child.pid)")
    return child
}

// Kept: a BackgroundProcess let go kills its child.
var kept = [try start("sleeper", "/bin/sleep", ["60"]),
            // SIG_IGN survives exec: this sleep ignores SIGTERM and leaves only through SIGKILL.
            try start("stubborn", "/bin/sh", ["-c", "trap '' TERM; exec sleep 60"])]

/// Whether `pid` ignores SIGTERM yet (its shell has run the trap): the SigIgn mask of /proc/PID/status.
func ignoresSIGTERM(_ pid: pid_t) -> Bool {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
          let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
    return mask & (1 << (UInt64(SIGTERM) - 1)) != 0
}
let ready = Date().addingTimeInterval(10)
while !ignoresSIGTERM(kept[1].pid) && Date() < ready { usleep(5_000) }
say(ignoresSIGTERM(kept[1].pid) ? "stubborn ignores SIGTERM" : "stubborn never ignored SIGTERM")

kill(getpid(), SIGTERM)
let deadline = Date().addingTimeInterval(10)
while Date() < deadline {
    do {
        kept.append(try start("late", "/bin/sleep", ["60"]))
        usleep(2_000)
    } catch {
        say("refused: \(error)")
        break
    }
}
// The stop owns the folder now: this must leave it to the stop, which is still waiting for a child.
Termination.remove(folder)
say(FileManager.default.fileExists(atPath: folder) ? "remove left it to the stop" : "remove removed it")
exit(0)
