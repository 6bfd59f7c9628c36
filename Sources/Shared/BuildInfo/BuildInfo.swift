/// What this binary is: thumbd's version, the commit and date it was built from, the compiler.
///
/// `generatedCommit` and `generatedBuildDate` come from a file BuildInfoPlugin writes before each
/// build into the build folder, so they follow HEAD without anyone running anything by hand.
public enum BuildInfo {
    /// thumbd's version: the one place it is written.
    public static let version = "0.14.0"

    /// The short commit hash (12 digits), with "-dirty" when committed files had changes; nil when
    /// the source did not come from a git checkout.
    public static var commit: String? { generatedCommit }

    /// The day of the build, UTC, as YYYY-MM-DD.
    public static var buildDate: String { generatedBuildDate }

    /// The Swift compiler that built this binary, major.minor: `#if compiler` is the only way to
    /// ask, and it answers only yes or no, hence the ladder.
    public static var compilerVersion: String {
        #if compiler(>=7.0)
        return "7.0 or later"
        #elseif compiler(>=6.9)
        return "6.9"
        #elseif compiler(>=6.8)
        return "6.8"
        #elseif compiler(>=6.7)
        return "6.7"
        #elseif compiler(>=6.6)
        return "6.6"
        #elseif compiler(>=6.5)
        return "6.5"
        #elseif compiler(>=6.4)
        return "6.4"
        #elseif compiler(>=6.3)
        return "6.3"
        #else
        return "6.2" // Package.swift's swift-tools-version: no older compiler builds thumbd
        #endif
    }
}
