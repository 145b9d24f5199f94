import HushCrypto
import HushDatabase

/// The C libraries this process loaded, as they report their own versions
/// (what a bug report needs, beside the app's version).
public struct LoadedLibraries: Sendable, Equatable {
    /// libsodium's version.
    public let sodium: String
    /// SQLCipher's version, or nil when the SQLite library loaded is not SQLCipher.
    public let sqlcipher: String?
    /// The SQLite version underneath.
    public let sqlite: String

    /// The libraries loaded now.
    public static var current: LoadedLibraries {
        let database = Database.libraryVersions()
        return LoadedLibraries(sodium: CryptoLibrary.sodiumVersion, sqlcipher: database.sqlcipher, sqlite: database.sqlite)
    }
}
