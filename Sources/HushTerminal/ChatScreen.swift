import Foundation
import Synchronization

/// A conversation screen on a plain terminal: incoming lines are printed
/// above the input line, which is then redrawn with whatever was being
/// typed, so arriving messages never garble the text under the cursor.
public final class ChatScreen: Sendable {
    private let prompt: String
    private let state = Mutex<ScreenState>(ScreenState())
    private let interactive: Bool

    private struct ScreenState {
        var editor = LineEditor()
        var status = ""
    }

    public init(prompt: String, interactive: Bool) {
        self.prompt = prompt
        self.interactive = interactive
    }

    /// Prints `text` above the input line.
    public func show(_ text: String) {
        state.withLock { s in
            if interactive {
                write("\r\u{1B}[K\(text)\n")
                redraw(s)
            } else {
                write("\(text)\n")
            }
        }
    }

    /// A status shown after the prompt (e.g. "bob is typing…"); empty clears it.
    public func setStatus(_ status: String) {
        state.withLock { s in
            s.status = status
            if interactive { redraw(s) }
        }
    }

    /// Feeds one input byte; returns what it meant.
    public func feed(_ byte: UInt8) -> InputEvent? {
        state.withLock { s in
            let event = s.editor.feed(byte)
            if interactive, event != nil {
                if case .submitted = event { write("\r\u{1B}[K") }
                redraw(s)
            }
            return event
        }
    }

    private func redraw(_ s: ScreenState) {
        let status = s.status.isEmpty ? "" : "  (\(s.status))"
        write("\r\u{1B}[K\(prompt)\(s.editor.text)\(status)")
        if !status.isEmpty {
            // Put the cursor back at the end of the typed text.
            write("\u{1B}[\(status.count)D")
        }
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Bytes from standard input, read on a dedicated thread (reads block).
    public static func inputBytes() -> AsyncStream<UInt8> {
        AsyncStream { continuation in
            let thread = Thread {
                var byte: UInt8 = 0
                while read(STDIN_FILENO, &byte, 1) == 1 {
                    continuation.yield(byte)
                }
                continuation.finish()
            }
            thread.start()
        }
    }
}
