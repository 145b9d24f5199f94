import Foundation
import HushCrypto
import HushKeystore
import HushStore

/// The data directory an account lives in, and the ways to unlock it.
public struct AccountHome: Sendable {
    public let directory: DataDirectory
    public let environment: [String: String]
    let passphraseFile: String?
    /// Where diagnostics for people go (the CLI: stderr with its prefix).
    let diagnostics: @Sendable (String) -> Void

    /// `home` and `passphraseFile` as given on the command line; the
    /// environment fills in what they leave open (HUSH_HOME, HUSH_PASSPHRASE).
    public init(home: String?, passphraseFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                diagnostics: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.environment = environment
        self.passphraseFile = passphraseFile
        self.diagnostics = diagnostics
        directory = try DataDirectory.resolve(home: home, environment: environment)
    }

    public var path: String { directory.path }
    /// Encrypted attachment blobs (0700), beside the database.
    public static let attachmentDirectoryName = "attachments"
    public var databasePath: String { directory.databasePath }

    var keystore: KeystoreFile { KeystoreFile(directory: directory) }

    var passphraseSource: PassphraseSource {
        PassphraseSource.resolve(file: passphraseFile, environment: environment)
    }

    /// Tries a person at a terminal gets at a mistyped passphrase; a script
    /// (HUSH_PASSPHRASE, a passphrase file) gets one, as retrying the same
    /// value cannot help.
    static let terminalPassphraseTries = 3

    /// Asks for the passphrase and unlocks the keystore.
    func unlock(prompt: String = "Passphrase: ") throws -> KeystoreContents {
        guard keystore.exists else { throw KeystoreError.noIdentity(home: directory.path) }
        try directory.checkPermissions()
        let start = ContinuousClock.now
        let contents = try readPassphrase(prompt: prompt).contents
        if environment["HUSH_TIMINGS"] == "1" {
            // For `make bench`: the Argon2id unlock, measured inside this process.
            let elapsed = ContinuousClock.now - start
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            diagnostics(String(format: "timing: unlock %.2f ms", milliseconds))
        }
        return contents
    }

    /// Reads the passphrase and opens the keystore with it; on a terminal a
    /// wrong one is asked again, up to `terminalPassphraseTries` in all.
    func readPassphrase(prompt: String) throws -> (passphrase: SecureBytes, contents: KeystoreContents) {
        let source = passphraseSource
        var triesLeft = source == .terminal ? Self.terminalPassphraseTries : 1
        var asking = prompt
        while true {
            let passphrase = try source.read(prompt: asking)
            let failure: KeystoreError
            do {
                return (passphrase, try keystore.unlock(passphrase: passphrase))
            } catch {
                failure = error
            }
            guard case .wrongPassphrase = failure, triesLeft > 1 else { throw failure }
            triesLeft -= 1
            // Said on the terminal, where the person is: the prompt itself.
            asking = "Wrong passphrase, try again (\(triesLeft) \(triesLeft == 1 ? "try" : "tries") left). " + prompt
        }
    }

    /// Opens this identity's existing database; a missing or emptied one is
    /// an error (see `MessageStore.openExisting`), never silently recreated.
    func openStore(_ contents: KeystoreContents) throws -> MessageStore {
        try MessageStore.openExisting(path: directory.databasePath, key: contents.databaseKey)
    }

    /// Creates a new, empty database for this identity: only account creation
    /// and an explicit `doctor --new-database` do this.
    func createStore(_ contents: KeystoreContents) throws -> MessageStore {
        try MessageStore(path: directory.databasePath, key: contents.databaseKey)
    }

    /// Removes the database with its WAL and shared-memory files, so that a new
    /// one can take its place.
    func removeDatabaseFiles() {
        for suffix in ["", "-wal", "-shm"] { unlink(directory.databasePath + suffix) }
    }
}
