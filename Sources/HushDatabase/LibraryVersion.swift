import CSQLCipher

extension Database {
    /// The SQLCipher and SQLite versions serving this process, asked of a
    /// throwaway in-memory connection (for `hush --version` and bug reports).
    /// nil when the library loaded is not SQLCipher.
    public static func libraryVersions() -> (sqlcipher: String?, sqlite: String) {
        let sqlite = String(cString: sqlite3_libversion())
        guard let database = try? Database(path: ":memory:", key: nil) else { return (nil, sqlite) }
        return (try? database.cipherVersion(), sqlite)
    }
}
