#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a spawned child's descriptors are: what the caller opens or duplicates onto 0, 1 and 2, and
/// nothing else. Without the last step a child inherits every descriptor of this process that is
/// not close-on-exec, and NIO's sockets are not: a SeaweedFS started by one test while a daemon
/// in the same process served another held that daemon's connections open, so a connection the
/// daemon closed stayed open to its client until the child exited.
final class SpawnFileActions {
    var raw = posix_spawn_file_actions_t()

    init() { posix_spawn_file_actions_init(&raw) }

    deinit { posix_spawn_file_actions_destroy(&raw) }

    func open(_ descriptor: Int32, _ path: String, _ flags: Int32) {
        posix_spawn_file_actions_addopen(&raw, descriptor, path, flags, 0o644)
    }

    func duplicate(_ descriptor: Int32, onto target: Int32) {
        posix_spawn_file_actions_adddup2(&raw, descriptor, target)
    }

    /// Last: closes every descriptor above stderr in the child.
    func closeTheRest() {
        if let closeFrom = Self.closeFrom {
            _ = closeFrom(&raw, 3)
            return
        }
        // A C library without closefrom for spawn: what is open now (a descriptor opened after
        // this listing can still leak, and one closed since is ignored by posix_spawn).
        for descriptor in openDescriptors() where descriptor > 2 { posix_spawn_file_actions_addclose(&raw, descriptor) }
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module does not
    /// export; looked up once.
    private static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    private func openDescriptors() -> [Int32] {
        guard let folder = opendir("/proc/self/fd") else { return [] }
        defer { closedir(folder) }
        var found: [Int32] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let descriptor = Int32(name) { found.append(descriptor) }
        }
        return found
    }
}
