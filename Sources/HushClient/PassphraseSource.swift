#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto
import HushKeystore

/// Where a passphrase comes from, strongest first:
/// - the terminal, read without echo (asked twice when creating);
/// - a file, `--passphrase-file FILE` (its first line);
/// - an environment variable, `HUSH_PASSPHRASE`: the weakest, since other
///   processes of the same user and crash reports may see the environment.
///   Meant for scripts and tests.
public enum PassphraseSource: Sendable, Equatable {
    case terminal
    case file(String)
    case environment(name: String, value: String)

    public static let environmentVariable = "HUSH_PASSPHRASE"
    /// For `hush passphrase change` in scripts: the new passphrase.
    public static let newPassphraseEnvironmentVariable = "HUSH_NEW_PASSPHRASE"
    /// A passphrase line longer than this is refused rather than read on.
    public static let maximumLength = 1024

    /// A file given as an option wins, then the environment, then the terminal.
    public static func resolve(file: String?, environment: [String: String],
                               variable: String = environmentVariable) -> PassphraseSource {
        if let file, !file.isEmpty { return .file(file) }
        if let value = environment[variable] { return .environment(name: variable, value: value) }
        return .terminal
    }

    /// Reads the passphrase. With `confirm` the terminal asks twice and the
    /// answers must match (other sources cannot mistype).
    public func read(prompt: String = "Passphrase: ", confirm: Bool = false) throws(KeystoreError) -> SecureBytes {
        let passphrase: SecureBytes
        switch self {
        case let .environment(name, value):
            guard !value.isEmpty else { throw .passphraseUnavailable("\(name) is empty") }
            // Straight from the string's bytes: no intermediate array left unwiped.
            passphrase = SecureBytes(copying: value.utf8, storage: .guarded)
        case let .file(path):
            passphrase = try PassphraseSource.readFirstLine(path)
        case .terminal:
            passphrase = try TerminalPassphrase.ask(prompt: prompt)
            if confirm {
                let again = try TerminalPassphrase.ask(prompt: "Repeat to confirm: ")
                guard again == passphrase else { throw .passphraseMismatch }
            }
        }
        guard passphrase.count > 0 else { throw .passphraseUnavailable("the passphrase is empty") }
        return passphrase
    }

    private static func readFirstLine(_ path: String) throws(KeystoreError) -> SecureBytes {
        guard var bytes = try AtomicFile.read(path, limit: 64 * 1024) else {
            throw .passphraseUnavailable("\(path) is too large to be a passphrase file")
        }
        defer { ConstantTime.wipe(&bytes) }
        var end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        if end > 0 && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end <= maximumLength else {
            throw .passphraseUnavailable("the first line of \(path) is longer than \(maximumLength) bytes")
        }
        guard end > 0 else { throw .passphraseUnavailable("the first line of \(path) is empty") }
        return SecureBytes(copying: bytes[0..<end], storage: .guarded)
    }
}

extension PassphraseSource: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Names the source, never the passphrase an environment source carries
    /// (a failed test expectation or a `print` would otherwise show it).
    public var description: String {
        switch self {
        case .terminal: return "terminal"
        case let .file(path): return "file \(path)"
        case let .environment(name, _): return "environment variable \(name) (redacted)"
        }
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
}
