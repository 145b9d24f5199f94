import Foundation
import HushCrypto
import HushKeystore
import HushStore

/// The data directory a command works on, and the ways to unlock it.
struct HomeContext {
    let directory: DataDirectory
    let options: GlobalOptions
    let environment: [String: String]

    init(_ options: GlobalOptions) throws {
        self.options = options
        environment = ProcessInfo.processInfo.environment
        directory = try DataDirectory.resolve(home: options.home, environment: environment)
    }

    var keystore: KeystoreFile { KeystoreFile(directory: directory) }

    var passphraseSource: PassphraseSource {
        PassphraseSource.resolve(file: options.passphraseFile, environment: environment)
    }

    /// Asks for the passphrase and unlocks the keystore.
    func unlock(prompt: String = "Passphrase: ") throws -> KeystoreContents {
        guard keystore.exists else { throw KeystoreError.noIdentity(home: directory.path) }
        try directory.checkPermissions()
        let passphrase = try passphraseSource.read(prompt: prompt)
        let start = ContinuousClock.now
        let contents = try keystore.unlock(passphrase: passphrase)
        if environment["HUSH_TIMINGS"] == "1" {
            // For `make bench`: the Argon2id unlock, measured inside this process.
            let elapsed = ContinuousClock.now - start
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            printError(String(format: "timing: unlock %.2f ms", milliseconds))
        }
        return contents
    }

    /// Opens this identity's existing database; a missing or emptied one is
    /// an error (see `MessageStore.openExisting`), never silently recreated.
    func openStore(_ contents: KeystoreContents) throws -> MessageStore {
        try MessageStore.openExisting(path: directory.databasePath, key: contents.databaseKey)
    }

    /// Creates a new, empty database for this identity: only `hush init` and
    /// an explicit `hush doctor --new-database` do this.
    func createStore(_ contents: KeystoreContents) throws -> MessageStore {
        try MessageStore(path: directory.databasePath, key: contents.databaseKey)
    }
}

/// The public identity key as 16 groups of 4 hex digits, for reading aloud.
func identityFingerprint(_ contents: KeystoreContents) -> String {
    identityFingerprint(publicKey: contents.identityKeyPair().publicKey.rawRepresentation)
}

func identityFingerprint(publicKey: [UInt8]) -> String {
    let hex = Array(Hex.encode(publicKey))
    return stride(from: 0, to: hex.count, by: 4).map { String(hex[$0..<min($0 + 4, hex.count)]) }.joined(separator: " ")
}

/// Prints a JSON object with sorted keys on stdout.
func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    print(String(decoding: data, as: UTF8.self))
}
