import ThumbCache

/// The answered keys the directory still holds, asked of the restarted daemon over HTTP: each must
/// come from its cache (`X-Cache` disk or memory, never a miss made again) with a body it answered
/// before the kill.
enum CrashServedCheck {
    struct Outcome: Sendable, Codable {
        var asked = 0
        /// Served with bytes no client was answered with before: torn as the daemon serves it.
        var differentBytes: [String] = []
        /// Listed by the index but made again (a miss), refused, or not answered at all.
        var notFromCache: [String] = []
    }

    static func run(port: Int, keys: [CrashAnswers.Answered]) -> Outcome {
        var outcome = Outcome()
        let connection = BenchKeepAliveConnection(port: port, timeout: 30)
        for key in keys {
            outcome.asked += 1
            let what = "\(key.request.url) [\(key.request.variant)]"
            guard let answer = try? connection.get(key.request.path), answer.status == 200 else {
                outcome.notFromCache.append("\(what): no 200")
                continue
            }
            if !key.sha256.contains(Hash256.of(answer.body).hex) {
                outcome.differentBytes.append(what)
            } else if answer.headers["x-cache"] == "miss" {
                outcome.notFromCache.append("\(what): X-Cache: miss")
            }
        }
        return outcome
    }
}
