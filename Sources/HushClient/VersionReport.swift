import HushCrypto
import HushDatabase

/// What `hush --version` prints: this release, the protocol it speaks and the
/// C libraries actually loaded (a bug report needs all four).
public enum VersionReport {
    /// The release of this `hush`; bumped with each tagged release.
    public static let release = "0.2.0"
    /// docs/PROTOCOL.md's version: every wire structure carries it as its version byte.
    public static let protocolVersion = 1

    public static var text: String {
        let database = Database.libraryVersions()
        return """
            hush \(release)
            protocol   \(protocolVersion) (docs/PROTOCOL.md)
            libsodium  \(CryptoLibrary.sodiumVersion)
            SQLCipher  \(database.sqlcipher ?? "not available (the SQLite library loaded is not SQLCipher)") (SQLite \(database.sqlite))
            """
    }
}
