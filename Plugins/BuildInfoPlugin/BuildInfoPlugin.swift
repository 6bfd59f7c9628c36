import Foundation
import PackagePlugin

/// Writes BuildInfo's generated file: the commit the binary is built from, and the build date.
///
/// A build command, rerun whenever git's record of HEAD or any source file of the package changes,
/// so a plain `swift build` after a commit, a checkout or an edit picks up the new state. (A
/// prebuild command would not do: SwiftPM reuses its build plan while the package's files and
/// folders stay the same, and prebuild commands run only when it plans.) The file is rewritten
/// only when its text changes, so an edit that leaves the commit and the dirty flag alone does not
/// recompile BuildInfo or relink thumbd.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let generated = context.pluginWorkDirectoryURL.appending(path: "BuildInfo+Generated.swift")
        let sources = context.package.targets.compactMap { $0 as? SourceModuleTarget }.flatMap { $0.sourceFiles.map(\.url) }
        return [
            .buildCommand(
                displayName: "BuildInfo: commit and build date",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "build-info", package.path, generated.path],
                inputFiles: Self.gitStateFiles(package) + sources,
                outputFiles: [generated]
            ),
        ]
    }

    /// The files git rewrites when HEAD moves (HEAD itself on a checkout, its reflog on every commit,
    /// reset or pull) or the index changes; none when the package is not a git checkout.
    static func gitStateFiles(_ package: URL) -> [URL] {
        var gitDirectory = package.appending(path: ".git")
        // In a worktree or a submodule, .git is a file that names the real git folder.
        if let pointer = try? String(contentsOf: gitDirectory, encoding: .utf8), pointer.hasPrefix("gitdir: ") {
            let path = pointer.dropFirst("gitdir: ".count).trimmingCharacters(in: .whitespacesAndNewlines)
            gitDirectory = path.hasPrefix("/") ? URL(fileURLWithPath: path) : package.appending(path: path)
        }
        return ["HEAD", "logs/HEAD", "index"]
            .map { gitDirectory.appending(path: $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// $1 the package folder, $2 the Swift file to write.
    /// A tarball (no .git, or no git installed) gives "commit unknown" rather than a failed build;
    /// so does a package folder that is not itself the top of a repository (a tarball unpacked inside
    /// someone else's checkout must not claim that checkout's commit). Untracked files do not make
    /// the tree dirty: only changes to committed files make the binary differ from its commit.
    /// SOURCE_DATE_EPOCH, when set, fixes the date for reproducible builds.
    static let script = #"""
        set -u
        PATH="/usr/bin:/bin:/usr/local/bin:${PATH:-}"
        package=$1 output=$2

        commit=nil
        top=$(git -C "$package" rev-parse --show-toplevel 2>/dev/null) || top=""
        if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$package" && pwd -P)" ] &&
           hash=$(git -C "$package" rev-parse --short=12 HEAD 2>/dev/null); then
            # --no-optional-locks: never take index.lock, which a git command running beside the build may hold.
            if [ -n "$(git -C "$package" --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null)" ]; then
                hash="$hash-dirty"
            fi
            commit="\"$hash\""
        fi

        if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
            date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
        else
            date=$(date -u +%Y-%m-%d)
        fi

        candidate="$output.new"
        cat > "$candidate" <<SWIFT || exit 1
        // Written by BuildInfoPlugin during the build (see Plugins/BuildInfoPlugin); never committed.
        extension BuildInfo {
            static let generatedCommit: String? = $commit
            static let generatedBuildDate = "$date"
        }
        SWIFT
        if cmp -s "$candidate" "$output"; then
            rm -f "$candidate"
        else
            mv -f "$candidate" "$output"
        fi
        """#
}
