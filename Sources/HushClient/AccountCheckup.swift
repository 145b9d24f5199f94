import HushKeystore
import HushProtocol
import HushStore

/// `doctor`: the keystore and database checks of one account.
public struct AccountCheckup {
    public let home: String
    public let fingerprint: String
    public let keystoreVersion: UInt8
    /// The keystore's Argon2id cost, as its name or parameters.
    public let kdf: String
    public let database: DoctorReport
    /// True when `createMissingDatabase` replaced a missing or empty messages.db.
    public let createdDatabase: Bool

    /// Unlocks the keystore and checks the database. A missing or emptied
    /// database is a failed check, or, with `createMissingDatabase`, replaced
    /// by an empty one for the same identity.
    public static func run(_ home: AccountHome, createMissingDatabase: Bool) throws -> AccountCheckup {
        let contents = try home.unlock()
        let header = try home.keystore.header()
        let (store, created) = try openOrCreateStore(home, contents, createMissingDatabase: createMissingDatabase)
        return AccountCheckup(home: home.path, fingerprint: IdentityFingerprint.of(publicKey: contents.identityKeyPair().publicKey.rawRepresentation), keystoreVersion: header.version,
                              kdf: header.cost.description, database: try store.doctor(), createdDatabase: created)
    }

    private static func openOrCreateStore(_ home: AccountHome, _ contents: KeystoreContents,
                                          createMissingDatabase: Bool) throws -> (MessageStore, created: Bool) {
        let store: MessageStore
        do {
            store = try home.openStore(contents)
        } catch let error as StoreError {
            guard case .databaseMissing = error else { throw error }
            guard createMissingDatabase else { throw AccountCheckupError.databaseMissing(error) }
            // An empty file, or SQLite's leftovers beside a missing one, are replaced.
            home.removeDatabaseFiles()
            return (try home.createStore(contents), true)
        }
        if createMissingDatabase { throw AccountCheckupError.databaseHoldsData }
        return (store, false)
    }
}

/// Why `AccountCheckup.run` stopped before checking the database.
public enum AccountCheckupError: UserFacingError {
    /// messages.db is missing or empty: restore it from a backup.
    case databaseMissing(StoreError)
    /// An empty database was asked for, but the existing one holds data.
    case databaseHoldsData

    public var exitCode: Int32 {
        switch self {
        case .databaseMissing: return ExitStatus.doctorFoundProblems.rawValue
        case .databaseHoldsData: return ExitStatus.usage.rawValue
        }
    }

    public var userMessage: String {
        switch self {
        case let .databaseMissing(error): return error.userMessage
        case .databaseHoldsData: return "messages.db exists and holds data: --new-database only creates one when it is missing or empty"
        }
    }
}
