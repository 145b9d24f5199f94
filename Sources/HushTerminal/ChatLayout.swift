/// What a full-screen chat shows on a terminal of a given size: the header
/// on the first row, the end of the transcript (wrapped to the width, by
/// display columns) in the rows between, and the input line on the last row
/// with the cursor after the typed text. Pure, so it is tested without a terminal.
public struct ChatLayout: Sendable, Equatable {
    public let rows: [String]
    /// Zero-based column of the cursor on the last row.
    public let cursorColumn: Int

    /// How many rows above the newest the transcript shows, after clamping.
    public let scrollback: Int

    /// `scrollback` rows up from the end of the transcript (0: the newest at the bottom).
    public init(columns: Int, lines: Int, header: String, transcript: ChatTranscript, prompt: String, input: String,
                scrollback: Int = 0) {
        // The terminal's own width, however narrow (a floor of 10 once made every row of a 6-column
        // terminal wrap onto the next, the input line too); 2 holds one wide character.
        let width = max(columns, 2)
        let height = max(lines, 3)
        var rows = [TerminalWidth.head(header, width: width)]

        let room = height - 2
        // Only the end is wrapped, newest entry first, until the rows shown and the rows scrolled
        // back are filled: wrapping the whole transcript at every paint made opening a chat of 50
        // long messages quadratic (24 s of CPU, a walkthrough). Running out of entries first is
        // the top of the transcript, which clamps the scrollback as before.
        let needed = room + max(scrollback, 0)
        var newestFirst: [[String]] = []
        var wrappedRows = 0
        for entry in transcript.entries.reversed() where wrappedRows < needed {
            var wrapped: [String] = []
            for line in entry.text.split(separator: "\n", omittingEmptySubsequences: false) {
                wrapped += TerminalWidth.wrap(String(line), width: width)
            }
            wrappedRows += wrapped.count
            newestFirst.append(wrapped)
        }
        let body = Array(newestFirst.reversed().joined())
        let back = min(max(scrollback, 0), max(body.count - room, 0))
        var shown = Array(body[..<(body.count - back)].suffix(room))
        if back > 0, !shown.isEmpty {
            // Scrolled up: the last row says so, and how to come back.
            shown[shown.count - 1] = TerminalWidth.head("── \(back) newer line\(back == 1 ? "" : "s") below: Page Down ──", width: width)
        }
        rows += Array(repeating: "", count: room - shown.count) + shown
        self.scrollback = back

        // A prompt that leaves fewer than three columns for what is typed gives way (to half the
        // width at most, and none at all on two columns): shortened, never the row wrapped, and the
        // cursor stays on the screen.
        let promptRoom = TerminalWidth.columns(of: prompt) + 4 <= width ? nil : min(width / 2, width - 2)
        let shownPrompt = promptRoom.map { $0 == 0 ? "" : TerminalWidth.head(prompt, width: $0) } ?? prompt
        // A pasted line break shows as ↵; the end of a long line stays in view.
        let visibleInput = TerminalWidth.tail(input.replacingOccurrences(of: "\n", with: "↵"),
                                              width: max(1, width - 1 - TerminalWidth.columns(of: shownPrompt)))
        rows.append(shownPrompt + visibleInput)
        self.rows = rows
        cursorColumn = TerminalWidth.columns(of: shownPrompt) + TerminalWidth.columns(of: visibleInput)
    }
}
