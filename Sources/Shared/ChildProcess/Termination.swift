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
/// for the stop to finish, so the scratch is still removed and the status is still the signal's. A
/// child it starts meanwhile (a daemon restarted, the next peer) fails to start, and the
/// stop waits for children without reaping them, so each owner's own wait still sees its status.
public enum Termination {
    private struct State {
        var children: Set<pid_t> = []
        var sources: [any DispatchSourceSignal] = []
        var stopping = false
    }
    private static let state = Mutex(State())
    /// Held while a folder is removed, by the program or by a stop: two removers of one tree each
    /// give up at the first entry the other took first, and between them leave the rest behind.
    private static let folders = Mutex(Set<String>())
    /// Its own queue: a busy global pool cannot hold a stop back.
    private static let queue = DispatchQueue(label: "thumbd.termination")

    /// Handles the stopping signals from now on (once; later calls do nothing).
    public static func stopChildrenOnSignals(grace: Double = 10) {
        state.withLock { state in
            guard state.sources.isEmpty else { return }
            atexit { Termination.waitIfStopping() }
            for number in [SIGTERM, SIGINT, SIGHUP] {
                // Dispatch sees a signal only when its default action is off.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { stop(after: number, grace: grace) }
                source.resume()
                state.sources.append(source)
            }
        }
    }

    /// The status `spawning` gives when a stop is under way.
    static let refusedWhileStopping = ECANCELED

    /// Runs `spawn` (posix_spawn and its status) and registers the child it started, unless a stop is
    /// under way: then nothing starts and the status is `refusedWhileStopping`. One lock around both, so a child
    /// is either known to a stop or never started; a stop could otherwise end the program between the
    /// spawn and the registration and leave that child running.
    static func spawning(_ spawn: () -> (status: Int32, pid: pid_t)) -> (status: Int32, pid: pid_t) {
        state.withLock { state in
            guard !state.stopping else { return (refusedWhileStopping, 0) }
            let started = spawn()
            if started.status == 0 { state.children.insert(started.pid) }
            return started
        }
    }
    static func ended(_ pid: pid_t) { _ = state.withLock { $0.children.remove(pid) } }

    /// A folder to remove if the program is stopped by a signal before it removes it itself.
    public static func removeOnSignal(_ folder: String) { _ = folders.withLock { $0.insert(folder) } }

    /// Removes a folder registered with `removeOnSignal`, unless a stop is under way: then the stop
    /// removes it, once the program's own removal (if one had begun) has finished.
    public static func remove(_ folder: String) {
        folders.withLock { folders in
            guard !state.withLock({ $0.stopping }) else { return }
            try? FileManager.default.removeItem(atPath: folder)
            folders.remove(folder)
        }
    }

    private static func stop(after number: Int32, grace: Double) {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        // A second signal while the first stop is under way: that stop decides the status.
        guard first else { return }
        for pid in state.withLock({ $0.children }) { kill(pid, SIGTERM) }
        waitForChildren(until: ChildProcess.monotonicSeconds() + grace)
        for pid in state.withLock({ $0.children }) where !hasEnded(pid) { kill(pid, SIGKILL) }
        // Killed children may still be writing into the folders: give them a moment to go.
        waitForChildren(until: ChildProcess.monotonicSeconds() + 2)
        // Held until _exit: the program's own removal never starts behind this one.
        folders.withLock { folders in
            for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
            // Not exit: the program's own thread may be inside it already, waiting for this stop.
            fflush(nil)
            _exit(128 + number)
        }
    }

    /// Until every child known now (read afresh: the program may start and reap some meanwhile) has
    /// ended, or the deadline.
    private static func waitForChildren(until deadline: Double) {
        while ChildProcess.monotonicSeconds() < deadline {
            guard state.withLock({ $0.children }).contains(where: { !hasEnded($0) }) else { return }
            usleep(20_000)
        }
    }

    /// Whether a child has ended, without reaping it (WNOWAIT): its owner's wait collects its status.
    private static func hasEnded(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        // ECHILD: its owner has reaped it already.
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return true }
        // Linux leaves the zeroed siginfo as it is when the child is still running.
        return info.si_signo != 0
    }

    /// Run by exit: while a stop is under way the process ends only through it.
    private static func waitIfStopping() {
        guard state.withLock({ $0.stopping }) else { return }
        while true { sleep(60) }
    }
}
