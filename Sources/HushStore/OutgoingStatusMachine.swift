/// The status machine of an outgoing message, as one pure function. Every
/// write of an outgoing message's status is guarded by it: the SQL guards in
/// `MessageRepository+Status` are derived from `sources(of:)`, so the rule
/// exists once, here.
///
///     pending ──relay accepted──▶ sent ──delivery receipt──▶ delivered ──read receipt──▶ read
///     pending ──given up──▶ failed ──user retries──▶ pending
///     failed ──relay accepted (a retry)──▶ sent
///     pending/sent ──receipt──▶ delivered/read   (a receipt may overtake the relay's answer)
///
/// Status only moves forward: a late "delivered" never undoes "read", and a
/// message the peer confirmed never becomes failed or pending again.
public enum OutgoingStatusMachine {
    /// Whether an outgoing message in `current` may move to `next`. Staying in
    /// the same status is not a move (the write changes nothing).
    public static func allows(from current: MessageStatus, to next: MessageStatus) -> Bool {
        switch (current, next) {
        // The relay accepted the envelope (201); a retried failed one too.
        case (.pending, .sent), (.failed, .sent): true
        // The outbox gave up on the request.
        case (.pending, .failed): true
        // The user retries a failed message.
        case (.failed, .pending): true
        // The peer's receipts, which may arrive before the relay's answer
        // (a deposit whose 201 was lost, then accepted on a later attempt).
        case (.pending, .delivered), (.sent, .delivered): true
        case (.pending, .read), (.sent, .read), (.delivered, .read): true
        default: false
        }
    }

    /// Every status from which `next` may be reached, in declaration order.
    public static func sources(of next: MessageStatus) -> [MessageStatus] {
        MessageStatus.allCases.filter { allows(from: $0, to: next) }
    }

    /// `sources(of:)` as the body of an SQL `IN (...)` list. Interpolating is
    /// safe: the values are the enum's fixed raw values, never user input.
    static func sqlSources(of next: MessageStatus) -> String {
        sources(of: next).map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }
}
