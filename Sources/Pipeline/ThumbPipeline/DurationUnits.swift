extension Duration {
    /// Whole nanoseconds (saturating), for APIs that count in them.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : whole &+ attoseconds / 1_000_000_000
    }

    /// For messages: "30 s", "250 ms".
    var shortText: String {
        let ns = nanoseconds
        return ns % 1_000_000_000 == 0 ? "\(ns / 1_000_000_000) s" : "\(ns / 1_000_000) ms"
    }
}
