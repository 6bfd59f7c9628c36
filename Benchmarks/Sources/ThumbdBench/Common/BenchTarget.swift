import ConsoleText

/// One target of a benchmark, as its report's TARGETS table and its JSON give it.
struct BenchTarget: Encodable {
    var name: String
    /// The measured figure, for tools; nil when there is none.
    var value: Double?
    /// The figure as people read it, with what it was measured from.
    var measured: String
    var target: String
    /// Nil when the figure could not be measured (no peer to compare with).
    var met: Bool?

    /// The TARGETS table: figure, measured, target, met or MISSED.
    static func table(_ targets: [BenchTarget], left: Set<Int>) -> String {
        TextTable.render(["figure", "measured", "target", ""], targets.map { t in
            [t.name, t.measured, t.target, t.met.map { $0 ? "met" : "MISSED" } ?? "-"]
        }, left: left)
    }
}
