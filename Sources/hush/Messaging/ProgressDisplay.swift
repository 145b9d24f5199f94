import Foundation
import HushKit
import HushTerminal
import Synchronization

/// Shows an attachment transfer's progress: a bar with bytes, rate and time
/// left when standard error is a terminal; a plain line every 10 % when it is
/// not; with `--json`, one event object per line on standard error
/// (standard output keeps the command's one JSON result for scripts).
/// Called from whatever thread moves the bytes, hence the lock.
final class ProgressDisplay: Sendable {
    enum Style { case bar, lines, json }

    private struct State {
        var phase: TransferProgress.Phase?
        var started = Date()
        var lastDraw = Date.distantPast
        var lastTenth = -1
    }

    private let style: Style
    private let label: String
    private let state = Mutex(State())
    /// Taken when made: the transfer calls back from tasks that do not carry the command's output.
    private let output = CommandOutput.current

    /// `terminal`: whether standard error is a terminal (for a daemon client, the client's).
    init(json: Bool, label: String, terminal: Bool = CommandContext.current?.stderrIsTerminal ?? (isatty(STDERR_FILENO) == 1)) {
        style = json ? .json : (terminal ? .bar : .lines)
        // A file's name may hold terminal controls (a name any process can give a file).
        self.label = UntrustedText.sanitized(label, keepingLineBreaks: false)
    }

    private func write(_ text: String) { output.write(.stderr, text) }

    var handler: @Sendable (TransferProgress) -> Void { { [self] in report($0) } }

    func report(_ progress: TransferProgress) {
        state.withLock { state in
            let now = Date()
            if state.phase != progress.phase {
                if state.phase != nil, style == .bar { write("\n") }
                state = State(phase: progress.phase, started: now)
            }
            let finished = progress.done >= progress.total
            let fraction = progress.total > 0 ? Double(progress.done) / Double(progress.total) : 1
            switch style {
            case .json:
                guard finished || now.timeIntervalSince(state.lastDraw) >= 0.25 else { return }
                state.lastDraw = now
                let event = Presentation.jsonLine(["event": "progress", "phase": progress.phase.rawValue,
                                                   "attachment": progress.attachment?.rawValue ?? 0, "done": progress.done, "total": progress.total])
                write(event + "\n")
            case .lines:
                let tenth = Int(fraction * 10)
                guard tenth != state.lastTenth else { return }
                state.lastTenth = tenth
                write("\(progress.phase.rawValue) \(label): \(tenth * 10)% (\(Self.bytes(progress.done)) of \(Self.bytes(progress.total)))\n")
            case .bar:
                guard finished || now.timeIntervalSince(state.lastDraw) >= 0.1 else { return }
                state.lastDraw = now
                let elapsed = max(now.timeIntervalSince(state.started), 0.001)
                let rate = Double(progress.done) / elapsed
                let left = rate > 0 ? Double(progress.total - progress.done) / rate : 0
                let width = 24, filled = Int(fraction * Double(width))
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                let line = "\r\(progress.phase.rawValue) \(label) [\(bar)] \(Self.bytes(progress.done))/\(Self.bytes(progress.total)) "
                    + "\(Self.bytes(Int64(rate)))/s \(finished ? "done" : "\(Int(left.rounded())) s left")\u{1B}[K"
                write(line)
                if finished { write("\n"); state.phase = nil }
            }
        }
    }

    /// 1.5 MiB, 812 KiB, 73 B.
    static func bytes(_ count: Int64) -> String {
        if count >= 1 << 20 { return String(format: "%.1f MiB", Double(count) / Double(1 << 20)) }
        if count >= 1 << 10 { return String(format: "%.0f KiB", Double(count) / Double(1 << 10)) }
        return "\(count) B"
    }
}
