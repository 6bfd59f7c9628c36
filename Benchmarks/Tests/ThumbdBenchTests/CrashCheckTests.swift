import Foundation
import Testing
import ThumbCache
@testable import ThumbdBench

/// The crash rounds' directory check, on cache directories damaged by hand: it passes a whole one,
/// and finds a torn file, a wrong body, a row without its file and every kind of orphan. (The
/// rounds themselves, with a real daemon killed under load: CrashRoundTests.)
@Suite struct CrashCheckTests {
    /// A closed cache of three entries, and the answers a client would have recorded for them.
    private func makeCache() throws -> (directory: String, answers: [CrashAnswers.Answered]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-crash-check-\(UUID().uuidString)")
        let cache = try DiskCache.open(at: directory, limits: DiskCacheLimits(fsync: .none), warn: { _ in })
        let plan = CrashURLPlan(originPort: 8999, photos: ["a.jpg", "b.webp", "c.png"])
        var answers: [CrashAnswers.Answered] = []
        for index in 0..<3 {
            let request = plan.request(index)
            let key = try CacheKey(url: request.url, variant: try #require(CacheVariant(request.variant)))
            #expect(key.digest == request.digest)
            let bytes = (0..<(2000 + index)).map { UInt8(truncatingIfNeeded: $0 * (index + 3)) }
            try cache.store(key, bytes)
            answers.append(.init(request: request, sha256: [Hash256.of(bytes).hex]))
        }
        cache.close()
        return (directory.path, answers)
    }

    private func file(_ directory: String, _ answer: CrashAnswers.Answered) -> String {
        CrashDirectoryCheck.dataPath(directory, answer.request.digest)
    }

    @Test func aWholeDirectoryPasses() throws {
        let (directory, answers) = try makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let findings = try CrashDirectoryCheck.check(directory: directory, answers: answers).findings
        #expect(findings.isClean, "\(findings)")
        #expect(findings.rows == 3 && findings.stillCached == 3 && findings.absent == 0)
    }

    @Test func aTornFileAndAFileOfOtherBytesAreTorn() throws {
        let (directory, answers) = try makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Half a file, as a write cut short would leave it; then the same size with other bytes.
        let half = try Data(contentsOf: URL(fileURLWithPath: file(directory, answers[0])))
        try half.prefix(half.count / 2).write(to: URL(fileURLWithPath: file(directory, answers[0])))
        try Data(repeating: 7, count: 2001).write(to: URL(fileURLWithPath: file(directory, answers[1])))
        let outcome = try CrashDirectoryCheck.check(directory: directory, answers: answers)
        #expect(outcome.findings.torn.count == 2, "\(outcome.findings.torn)")
        #expect(outcome.findings.rowProblems.count == 2, "\(outcome.findings.rowProblems)")
        #expect(outcome.findings.stillCached == 1 && outcome.stillCached.map(\.request) == [answers[2].request])
        #expect(!outcome.findings.isClean)
    }

    @Test func aWholeFileThatIsNotTheBodyAnsweredIsTorn() throws {
        let (directory, answers) = try makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var recorded = answers
        recorded[2].sha256 = [String(repeating: "0", count: 64)]
        let findings = try CrashDirectoryCheck.check(directory: directory, answers: recorded).findings
        #expect(findings.rowProblems.isEmpty, "the file is what its row says: \(findings.rowProblems)")
        #expect(findings.torn.count == 1 && findings.torn[0].contains(answers[2].request.url), "\(findings.torn)")
    }

    @Test func aRowWithoutItsFileIsAProblemAndAnAnswerNoLongerListedIsAbsent() throws {
        let (directory, answers) = try makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.removeItem(atPath: file(directory, answers[0]))
        var more = answers
        more.append(.init(request: CrashURLPlan(originPort: 8999, photos: ["d.jpg"]).request(40), sha256: ["x"]))
        let findings = try CrashDirectoryCheck.check(directory: directory, answers: more).findings
        #expect(findings.rowProblems.count == 1 && findings.rowProblems[0].hasPrefix("missing file"), "\(findings.rowProblems)")
        #expect(findings.torn.count == 1, "the index still lists it: \(findings.torn)")
        #expect(findings.absent == 1 && findings.stillCached == 2)
    }

    @Test func everyKindOfOrphanIsFound() throws {
        let (directory, answers) = try makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unlisted = String(repeating: "ab", count: 32)
        try FileManager.default.createDirectory(atPath: directory + "/objects/ab", withIntermediateDirectories: true)
        let strays = [directory + "/objects/ab/" + unlisted,                              // a file without a row
                      directory + "/objects/ab/" + String(repeating: "ac", count: 32) + ".meta",  // a sidecar without a row
                      directory + "/objects/ab/notes.txt",                                 // not a cache name
                      directory + "/objects/stray",                                        // not a fan-out folder
                      directory + "/tmp/" + unlisted + ".partial"]                         // an unfinished write
        for path in strays { try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path)) }
        let findings = try CrashDirectoryCheck.check(directory: directory, answers: answers).findings
        #expect(Set(findings.orphans) == Set(strays), "\(findings.orphans)")
        #expect(findings.rowProblems.isEmpty && findings.torn.isEmpty && findings.stillCached == 3)
    }
}
