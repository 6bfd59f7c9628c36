import GRDB

extension DiskCache {
    /// The SQLite library the cache index runs on, as loaded at run time ("3.40.1").
    public static var sqliteVersion: String {
        // sqlite3_libversion_number() is major * 1,000,000 + minor * 1,000 + patch.
        let number = Int(Database.sqliteLibVersionNumber)
        return "\(number / 1_000_000).\(number / 1_000 % 1_000).\(number % 1_000)"
    }
}
