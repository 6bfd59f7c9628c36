import Foundation
import ThumbdFuzzTargets

enum Commands {
    static let usage = """
        usage: thumbd-fuzz TARGET [-flag=value ...] [CORPUS_DIR ...]   fuzz (libFuzzer build: make fuzz-build)
               thumbd-fuzz TARGET FILE_OR_DIR ...                      replay inputs (any other build)
               thumbd-fuzz --list                                      the targets
               thumbd-fuzz --seeds TARGET DIR                          write the target's generated seeds into DIR
        TARGET may instead come from \(FuzzTarget.environmentVariable); targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))
        """

    #if THUMBD_LIBFUZZER
    static let mode = "libFuzzer"
    #else
    static let mode = "replay only (built without libFuzzer)"
    #endif

    /// Runs `--list`, `--seeds` and `--help` (and exits); otherwise takes a leading target name off
    /// the arguments and puts it in `THUMBD_FUZZ_TARGET`, where libFuzzer's child processes
    /// (-fork, -minimize_crash), which get only libFuzzer's own arguments, find it too.
    static func prepare(_ arguments: [String]) -> [String] {
        switch arguments.first {
        case "--list":
            print("mode: \(mode)")
            for target in FuzzTarget.allCases { print("\(target.rawValue)\t\(target.summary)") }
            exit(0)
        case "--seeds":
            guard arguments.count == 3, let target = FuzzTarget(rawValue: arguments[1]) else { fail(usage, status: 2) }
            exit(writeSeeds(for: target, into: arguments[2]))
        case "-h", "--help", "-help=1":
            print(usage)
            exit(0)
        default:
            break
        }
        var rest = arguments
        if let name = rest.first, let target = FuzzTarget(rawValue: name) {
            rest.removeFirst()
            setenv(FuzzTarget.environmentVariable, target.rawValue, 1)
        }
        guard FuzzTarget.active != nil else { fail("thumbd-fuzz: no target given\n" + usage, status: 2) }
        return rest
    }

    /// Runs every file given (folders: every file in them) through the target, naming each first,
    /// so a crash names its input. Arguments that look like libFuzzer flags are ignored.
    static func replay(_ arguments: [String]) -> Int32 {
        guard let target = FuzzTarget.active else { return 2 }
        var files: [String] = []
        for argument in arguments where !argument.hasPrefix("-") {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
                say("thumbd-fuzz: \(argument) does not exist\n")
                return 2
            }
            if isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                files += names.sorted().map { "\(argument)/\($0)" }.filter { path in
                    var folder: ObjCBool = false
                    return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && !folder.boolValue
                }
            } else {
                files.append(argument)
            }
        }
        for file in files {
            say("thumbd-fuzz: \(target.rawValue) <- \(file)\n")
            guard let data = FileManager.default.contents(atPath: file) else {
                say("thumbd-fuzz: cannot read \(file)\n")
                return 1
            }
            do {
                try target.run([UInt8](data))
            } catch {
                say("thumbd-fuzz: \(file): \(error.description)\n")
                return 1
            }
        }
        print("thumbd-fuzz: replayed \(files.count) inputs through \(target.rawValue); none crashed")
        return 0
    }

    static func writeSeeds(for target: FuzzTarget, into folder: String) -> Int32 {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for seed in SeedMaker.seeds(for: target) {
                try Data(seed.bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent("generated-\(seed.name)"))
            }
            return 0
        } catch {
            say("thumbd-fuzz: cannot write seeds into \(folder): \(error)\n")
            return 1
        }
    }

    static func say(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func fail(_ text: String, status: Int32) -> Never {
        say(text + "\n")
        exit(status)
    }
}
