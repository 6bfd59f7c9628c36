import ArgumentParser
import ConsoleText
import ExitStatus
import HeapTuning

@main
struct Thumbd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbd",
        abstract: "Thumbnails of any width x height from JPEG, PNG, WebP, AVIF, HEIC, GIF, TIFF, BMP and JPEG XL photos: fast, sharp, colour-managed, and safe with hostile files.",
        discussion: HelpText.reflowed("""
            Exit status: 0 when everything succeeded, 1 when any image failed (the others are still done),
            2 for a usage error. Errors carry a stable code such as corrupt_image or pixel_limit_exceeded.
            """),
        version: VersionText.text,
        subcommands: [ServeCommand.self, ThumbnailCommand.self, PrefetchCommand.self, PrepareCommand.self, CacheCommand.self, SignCommand.self, ConfigCommand.self, HealthCheckCommand.self]
    )

    /// Usage errors exit 2 (not ArgumentParser's 64), so scripts can tell them from image failures.
    static func main() async {
        AllocatorTuning.startWithOneArena()
        await runExitingTwoOnUsageErrors()
    }
}
