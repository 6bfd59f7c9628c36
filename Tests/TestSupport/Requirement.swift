import Foundation
import Testing

/// What a test needs from outside the package: the corpora, Pillow, heif-enc, djxl, nginx,
/// SeaweedFS… Where it is missing the test is skipped, saying what is missing; under CI (`CI=true`,
/// as `.ci/run` is run) it fails instead, saying the same. `make test` installs all of it, so on CI
/// a missing reference is a broken set-up, and a green run must never hide tests that did not run.
///
///     @Suite(.requires(HEIFEnc.available, "heif-enc is not installed"))
public struct Requirement: TestTrait, SuiteTrait, TestScoping {
    public let isMet: Bool
    public let missing: Comment

    /// Whether a missing requirement fails the run: CI=true, the one switch every gate shares.
    public static let strict: Bool = {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? ""
        return value == "true" || value == "1" || value == "yes"
    }()

    public init(isMet: Bool, missing: Comment) {
        (self.isMet, self.missing) = (isMet, missing)
    }

    public var isRecursive: Bool { true }

    /// Each test function (each case of a parameterized one) is gated; a suite only through them.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Requirement? {
        guard !test.isSuite, testCase != nil || !test.isParameterized else { return nil }
        return self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard isMet else { return try Self.unmet(missing) }
        try await function()
    }

    /// For a check inside a test that needs something the rest of it does not: records the failure
    /// under CI, and otherwise ends the test as skipped, saying what was missing.
    public static func unmet(_ missing: Comment, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if strict {
            Issue.record("\(missing.rawValue) (CI=true: a missing tool or reference fails the run; make test installs it)",
                         sourceLocation: sourceLocation)
            return
        }
        try Test.cancel(missing, sourceLocation: sourceLocation)
    }
}

extension Trait where Self == Requirement {
    /// The test or suite needs something `isMet` says is there; `missing` says what, and how to get it.
    public static func requires(_ isMet: Bool, _ missing: Comment) -> Requirement {
        Requirement(isMet: isMet, missing: missing)
    }
}
