#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Synchronization

/// What a program that starts children (daemons, nginx, an origin, wrk) does when it is told to stop
/// with SIGTERM, SIGINT or SIGHUP: its running children get SIGTERM, then SIGKILL after a grace, the
/// scratch folders it registered are removed, and it exits 128 + the signal. Without it a benchmark
/// killed on its own (not through its terminal's process group) leaves its daemons running.
///
/// Meanwhile the program goes on, sees its children die and may end on its own: an exit then waits
/// for the stop to finish, so the scratch is still removed and the status is still the signal's.
public enum Termination {
    private struct State {
        var children: Set<pid_t> = []
        var folders: Set<String> = []
        var sources: [any DispatchSourceSignal] = []
        var stopping = false
    }
    private static let state = Mutex(State())

    /// Handles the stopping signals from now on (once; later calls do nothing).
    public static func stopChildrenOnSignals(grace: Double = 10) {
        state.withLock { state in
            guard state.sources.isEmpty else { return }
            atexit { Termination.waitIfStopping() }
            for number in [SIGTERM, SIGINT, SIGHUP] {
                // Dispatch sees a signal only when its default action is off.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { stop(after: number, grace: grace) }
                source.resume()
                state.sources.append(source)
            }
        }
    }

    static func started(_ pid: pid_t) { _ = state.withLock { $0.children.insert(pid) } }
    static func ended(_ pid: pid_t) { _ = state.withLock { $0.children.remove(pid) } }

    /// A folder to remove if the program is stopped by a signal before it removes it itself.
    public static func removeOnSignal(_ folder: String) { _ = state.withLock { $0.folders.insert(folder) } }
    public static func forget(_ folder: String) { _ = state.withLock { $0.folders.remove(folder) } }

    private static func stop(after number: Int32, grace: Double) {
        let (children, folders) = state.withLock { state in
            state.stopping = true
            return (state.children, state.folders)
        }
        for pid in children { kill(pid, SIGTERM) }
        let deadline = ChildProcess.monotonicSeconds() + grace
        var running = children
        while !running.isEmpty && ChildProcess.monotonicSeconds() < deadline {
            running = running.filter { pid in
                var status: Int32 = 0
                let reaped = waitpid(pid, &status, WNOHANG)
                return reaped == 0
            }
            if !running.isEmpty { usleep(20_000) }
        }
        for pid in running { kill(pid, SIGKILL) }
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
        // Not exit: the program's own thread may be inside it already, waiting for this stop.
        fflush(nil)
        _exit(128 + number)
    }

    /// Run by exit: while a stop is under way the process ends only through it.
    private static func waitIfStopping() {
        guard state.withLock({ $0.stopping }) else { return }
        while true { sleep(60) }
    }
}
