import Foundation
import Glibc
import Synchronization

/// A conversation on a terminal. Interactive, it takes the whole screen (the
/// alternate screen, as `less` and editors do) and repaints it from its model
/// on every change: header, transcript, input line. So an arriving message
/// never garbles what is being typed, a status mark changes on its message's
/// own line, and a resize just repaints. Without a terminal it prints lines.
public final class ChatScreen: Sendable {
    private let prompt: String
    private let interactive: Bool
    private let state = Mutex<ScreenState>(ScreenState())
    /// Where the screen's bytes go: standard output, or a test's recorder.
    private let output: @Sendable (String) -> Void

    private struct ScreenState {
        var editor = LineEditor()
        var header = ""
        var transcript = ChatTranscript()
        var size = TerminalSize(columns: 80, lines: 24)
        var open = false
        /// Rows scrolled up from the newest (Page Up/Down); sending a message comes back down.
        var scrollback = 0
    }

    /// Alternate screen on; bracketed paste on (pasted line breaks stay in the line).
    static let enterSequence = "\u{1B}[?1049h\u{1B}[?2004h"
    /// Bracketed paste off; back to the normal screen, cursor shown.
    static let leaveSequence = "\u{1B}[?2004l\u{1B}[?1049l\u{1B}[?25h"

    public init(prompt: String, interactive: Bool, output: (@Sendable (String) -> Void)? = nil) {
        self.prompt = prompt
        self.interactive = interactive
        self.output = output ?? ChatScreen.writeToStandardOutput
    }

    public var isInteractive: Bool { interactive }

    /// Takes over the screen (interactive only).
    public func open() {
        guard interactive else { return }
        state.withLock { s in
            s.size = TerminalSize.current()
            s.open = true
            write(ChatScreen.enterSequence)
            paint(&s)
        }
    }

    /// The line being typed, as it stands.
    public var inputText: String { state.withLock { $0.editor.text } }

    /// Gives the screen back; safe to call more than once.
    public func close() {
        state.withLock { s in
            guard s.open else { return }
            s.open = false
            write(ChatScreen.leaveSequence)
        }
    }

    /// The terminal changed size: repaint for the new one.
    public func resized() {
        state.withLock { s in
            s.size = TerminalSize.current()
            if s.open { paint(&s) }
        }
    }

    public func setHeader(_ header: String) {
        state.withLock { s in
            guard s.header != header else { return }
            s.header = header
            if s.open { paint(&s) }
        }
    }

    /// Adds a line (which may hold line breaks) below the others; `key` lets `update` replace it later.
    public func show(_ text: String, key: String? = nil) {
        state.withLock { s in
            s.transcript.append(text, key: key)
            if s.scrollback > 0 {
                // Scrolled up: the view stays on what was being read.
                s.scrollback += text.split(separator: "\n", omittingEmptySubsequences: false)
                    .reduce(0) { $0 + TerminalWidth.wrap(String($1), width: s.size.columns).count }
            }
            if s.open { paint(&s) } else if !interactive { write(text + "\n") }
        }
    }

    /// Replaces the line(s) shown with `key` where they stand. Returns false
    /// when no line has it. Without a terminal nothing is printed again.
    @discardableResult
    public func update(key: String, text: String) -> Bool {
        state.withLock { s in
            let found = s.transcript.replace(key: key, with: text)
            if found, s.open { paint(&s) }
            return found
        }
    }

    /// Feeds one input byte; returns what it meant.
    public func feed(_ byte: UInt8) -> InputEvent? {
        feed([byte]).first
    }

    /// Feeds the bytes of one read (a paste arrives as one); returns what they
    /// meant, in order. The screen is repainted once for them all, not per byte.
    public func feed(_ bytes: [UInt8]) -> [InputEvent] {
        state.withLock { s in
            var events: [InputEvent] = []
            for byte in bytes {
                guard let event = s.editor.feed(byte) else { continue }
                let page = max(1, s.size.lines - 3)
                switch event {
                case .pageUp: s.scrollback += page
                case .pageDown: s.scrollback = max(0, s.scrollback - page)
                case .submitted: s.scrollback = 0
                default: break
                }
                // One `.edited` for a run of them: a paste of 32 KiB made the chat read the whole line
                // and tell the typing state once per byte (tens of seconds, a walkthrough).
                if event == .edited, events.last == .edited { continue }
                events.append(event)
            }
            if !events.isEmpty, s.open { paint(&s) }
            return events
        }
    }

    private func paint(_ s: inout ScreenState) {
        var input = s.editor.text
        if s.editor.isTooLong {
            input += " ⟨line too long: \(s.editor.byteCount) bytes, at most \(LineEditor.maximumBytes)⟩"
        }
        let layout = ChatLayout(columns: s.size.columns, lines: s.size.lines, header: s.header,
                                transcript: s.transcript, prompt: prompt, input: input, scrollback: s.scrollback)
        s.scrollback = layout.scrollback
        // Hidden cursor while painting; each row is erased, then written
        // (erasing after writing could clear a character in the last column).
        var out = "\u{1B}[?25l"
        for (index, row) in layout.rows.enumerated() {
            out += "\u{1B}[\(index + 1);1H\u{1B}[2K" + row
            if row.contains("\u{1B}") { out += "\u{1B}[0m" }
        }
        out += "\u{1B}[\(layout.rows.count);\(layout.cursorColumn + 1)H\u{1B}[?25h"
        write(out)
    }

    private func write(_ text: String) { output(text) }

    private static let writeToStandardOutput: @Sendable (String) -> Void = { text in
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Bytes from standard input, one array per read, read on a dedicated thread (reads block).
    public static func inputBytes() -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            let thread = Thread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    continuation.yield(Array(buffer[..<count]))
                }
                continuation.finish()
            }
            thread.start()
        }
    }
}
