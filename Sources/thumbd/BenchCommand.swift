import ArgumentParser
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "Measure thumbnail speed and quality against vipsthumbnail, Pillow and djpeg.")
    func run() async throws { throw ExitCode.failure }
}
