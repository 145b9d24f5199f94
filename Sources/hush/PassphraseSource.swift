#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto
import HushKit

/// Where a passphrase comes from, strongest first:
/// - the terminal, read without echo (asked twice when creating);
/// - a file, `--passphrase-file FILE` (its first line);
/// - an environment variable, `HUSH_PASSPHRASE`: the weakest, since other
///   processes of the same user and crash reports may see the environment.
///   Meant for scripts and tests.
///
/// What `read` returns is the caller's to wipe (`wipe()`) once it is handed
/// to `KeyProvider`, which keeps its own copy in guarded memory.
enum PassphraseSource: Sendable, Equatable {
    case terminal
    case file(String)
    case environment(name: String, value: String)

    static let environmentVariable = SecretNaming.passphrase.variable
    /// For `hush passphrase change` in scripts: the new passphrase.
    static let newPassphraseEnvironmentVariable = SecretNaming.newPassphrase.variable
    /// A passphrase line longer than this is refused rather than read on.
    static let maximumLength = 1024
    /// A passphrase file larger than this is refused unread.
    static let maximumFileSize = 64 * 1024

    /// A file given as an option wins, then the environment, then the terminal.
    static func resolve(file: String?, environment: [String: String],
                        variable: String = environmentVariable) -> PassphraseSource {
        if let file, !file.isEmpty { return .file(file) }
        if let value = environment[variable] { return .environment(name: variable, value: value) }
        return .terminal
    }

    /// Reads the passphrase's UTF-8 bytes. With `confirm` the terminal asks
    /// twice and the answers must match (other sources cannot mistype).
    /// `secret` names it in errors ("no recovery key: …"), with its other sources.
    func read(prompt: String = "Passphrase: ", confirm: Bool = false, secret: SecretNaming = .passphrase) throws(HushError) -> [UInt8] {
        var passphrase: [UInt8]
        switch self {
        case let .environment(name, value):
            guard !value.isEmpty else { throw Self.unavailable("\(name) is empty", secret: secret) }
            passphrase = Array(value.utf8)
        case let .file(path):
            passphrase = try PassphraseSource.readFirstLine(path, secret: secret)
        case .terminal:
            passphrase = try TerminalPassphrase.ask(prompt: prompt, secret: secret)
            if confirm {
                var again = try TerminalPassphrase.ask(prompt: "Repeat to confirm: ", secret: secret)
                defer { again.wipe() }
                guard again == passphrase else {
                    passphrase.wipe()
                    throw HushError(.keyUnavailable, reason: "the \(secret.noun)s do not match: nothing was changed, try again")
                }
            }
        }
        guard !passphrase.isEmpty else { throw Self.unavailable("the \(secret.noun) is empty", secret: secret) }
        return passphrase
    }

    /// The words of a secret that cannot be had (exit code 16).
    static func unavailable(_ reason: String, secret: SecretNaming = .passphrase) -> HushError {
        HushError(.keyUnavailable, reason: "no \(secret.noun): \(reason)")
    }

    private static func readFirstLine(_ path: String, secret: SecretNaming) throws(HushError) -> [UInt8] {
        var bytes = try readFile(path, secret: secret)
        defer { bytes.wipe() }
        var end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        if end > 0 && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end <= maximumLength else {
            throw unavailable("the first line of \(path) is longer than \(maximumLength) bytes", secret: secret)
        }
        guard end > 0 else { throw unavailable("the first line of \(path) is empty", secret: secret) }
        return Array(bytes[0..<end])
    }

    /// The whole file, up to `maximumFileSize` bytes; the descriptor is
    /// this function's alone and closed once, on every path.
    /// A named pipe or character device is read as well (`--passphrase-file
    /// <(pass show hush)`): only this process waits for it, never a daemon.
    private static func readFile(_ path: String, secret: SecretNaming) throws(HushError) -> [UInt8] {
        let descriptor: Int32
        do { descriptor = try RegularFile.openForReading(path, acceptingPipes: true) } catch {
            // A file that is missing, unreadable or a directory gives no secret: exit 16 says so, as
            // the exit-code table promises (it said 1, a failure of the program's own).
            switch error.reason {
            case let .system(operation, code):
                throw unavailable("could not \(operation) \(path): \(String(cString: strerror(code)))", secret: secret)
            case .notRegularFile:
                throw HushError(.keyUnavailable, reason: "no \(secret.noun): \(error.problem)", suggestion: error.suggestion)
            }
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: maximumFileSize + 1)
        var total = 0
        while total < buffer.count {
            let result = buffer.withUnsafeMutableBytes { raw in
                systemRead(descriptor, raw.baseAddress! + total, raw.count - total)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let code = errno
                buffer.wipe()
                throw couldNot("read", path, code)
            }
            if result == 0 { break }
            total += result
        }
        guard total <= maximumFileSize else {
            buffer.wipe()
            throw unavailable("\(path) is too large to be a \(secret.noun) file", secret: secret)
        }
        // Shrinks in place: no second copy of the secret is made.
        buffer.removeSubrange(total...)
        return buffer
    }

    private static func couldNot(_ operation: String, _ path: String, _ code: Int32) -> HushError {
        HushError(.storage, reason: "could not \(operation) \(path): \(String(cString: strerror(code)))")
    }
}

/// The C library's read(2), named apart from `PassphraseSource.read`.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

extension PassphraseSource: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Names the source, never the passphrase an environment source carries
    /// (a failed test expectation or a `print` would otherwise show it).
    var description: String {
        switch self {
        case .terminal: return "terminal"
        case let .file(path): return "file \(path)"
        case let .environment(name, _): return "environment variable \(name) (redacted)"
        }
    }

    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
}
