#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushKit

/// Reads a line from the controlling terminal with echo turned off, and
/// restores the terminal even when interrupted mid-line by an error.
enum TerminalPassphrase {
    /// The typed line's bytes, for the caller to wipe once handed on.
    static func ask(prompt: String, secret: SecretNaming = .passphrase) throws(HushError) -> [UInt8] {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard tty >= 0 else {
            throw PassphraseSource.unavailable("no terminal to ask on: use \(secret.fileOption) FILE or \(secret.variable)", secret: secret)
        }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else {
            throw PassphraseSource.unavailable("the terminal cannot turn off echo: use \(secret.fileOption) FILE", secret: secret)
        }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        guard tcsetattr(tty, TCSAFLUSH, &silent) == 0 else {
            throw PassphraseSource.unavailable("the terminal cannot turn off echo: use \(secret.fileOption) FILE", secret: secret)
        }
        defer { _ = tcsetattr(tty, TCSAFLUSH, &saved) }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }

        var buffer = [UInt8](repeating: 0, count: PassphraseSource.maximumLength + 1)
        var length = 0
        var ended = false
        buffer.withUnsafeMutableBytes { out in
            var byte: UInt8 = 0
            while length < out.count {
                let result = read(tty, &byte, 1)
                if result < 0 && errno == EINTR { continue }
                if result <= 0 { break }
                if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { ended = true; break }
                out[length] = byte
                length += 1
            }
            byte = 0
        }
        guard length <= PassphraseSource.maximumLength, ended || length > 0 else {
            buffer.wipe()
            throw PassphraseSource.unavailable("nothing was typed", secret: secret)
        }
        // Shrinks in place: no second copy of the secret is made.
        buffer.removeSubrange(length...)
        return buffer
    }
}
