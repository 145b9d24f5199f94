import HushKit

/// What `hush --version` prints: this release, the protocol it speaks and the
/// C libraries actually loaded (a bug report needs all four).
enum VersionReport {
    /// The release of this `hush`; bumped with each tagged release.
    static let release = "0.2.0"
    /// docs/PROTOCOL.md's version: every wire structure carries it as its version byte.
    static let protocolVersion = 1

    static var text: String {
        let libraries = LoadedLibraries.current
        return """
            hush \(release)
            protocol   \(protocolVersion) (docs/PROTOCOL.md)
            libsodium  \(libraries.sodium)
            SQLCipher  \(libraries.sqlcipher ?? "not available (the SQLite library loaded is not SQLCipher)") (SQLite \(libraries.sqlite))
            """
    }
}
