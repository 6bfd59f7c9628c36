#if !THUMBD_LIBFUZZER
import Foundation
import ThumbdFuzzTargets

/// Without libFuzzer (any ordinary build): `thumbd-fuzz TARGET FILE_OR_FOLDER ...` runs the files
/// through the target, so a crash found elsewhere can be replayed, and `--list` / `--seeds` work.
/// In a libFuzzer build, libFuzzer's own `main` runs instead (see FuzzEntry.swift).
@main
enum ThumbdFuzz {
    static func main() {
        let arguments = Commands.prepare(Array(CommandLine.arguments.dropFirst()))
        exit(Commands.replay(arguments))
    }
}
#endif
