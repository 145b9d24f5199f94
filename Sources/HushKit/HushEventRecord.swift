import Foundation
import HushMessenger
import HushStore

/// A durable event with its place in the account's event log.
///
/// Every event that tells of a stored change (a message stored, a status
/// changed, typing, a reaction, a group change, a resend, something set
/// aside) is written to the log in the transaction of the change itself,
/// and numbered: `seq` increases with every event the account stores and is
/// never given twice, but numbers may be skipped (seqs are increasing, not
/// contiguous). A client that remembers the last seq it processed replays
/// what it missed with `HushAccount.eventRecords(after:)`.
///
/// The log names what changed by id (and a status, a typing flag or why
/// an envelope was set aside): never message text or keys.
public struct HushEventRecord: Sendable, Equatable {
    /// The event's number in the log: increasing, never reused, not contiguous.
    public let seq: UInt64
    /// What happened.
    public let event: HushEvent
    /// When it was stored.
    public let date: Date

    init(seq: UInt64, event: HushEvent, date: Date) {
        self.seq = seq
        self.event = event
        self.date = date
    }

    /// A row of the log in HushKit's terms.
    init(_ logged: LoggedEvent) {
        self.init(seq: UInt64(logged.seq), event: HushEvent(logged.entry), date: Date(milliseconds: logged.createdAt))
    }
}

/// What `HushAccount.eventRecords(after:)` streams: durable events with
/// their seq, in order and each once, and live-only ones between them.
public enum HushStreamedEvent: Sendable, Equatable {
    /// A durable event, from the log or live: acknowledge its seq once processed.
    case record(HushEventRecord)
    /// A live-only event, never replayed: `.connectionChanged`,
    /// `.transferProgress`, `.syncFailed`, or `.missed(count:)` when the
    /// stream fell behind the live feed. After `.missed`, the durable
    /// events among those it counts follow from the log (nothing to do);
    /// the live-only ones are lost (read the connection state again).
    case live(HushEvent)
}

extension HushStreamedEvent {
    /// A published messenger event: durable with its seq (made from its log
    /// entry, as a replay makes it), live-only without.
    init(_ record: MessengerEventRecord) {
        if let seq = record.seq, let entry = record.event.logEntry {
            self = .record(HushEventRecord(seq: UInt64(seq), event: HushEvent(entry), date: Date(milliseconds: record.createdAt)))
        } else {
            self = .live(HushEvent(record.event))
        }
    }
}

extension HushEvent {
    /// A row of the event log as the event it records. The one switch over
    /// the log's kinds (the store refuses a kind it does not know); the
    /// messenger decides what is logged (`MessengerEvent.logEntry`).
    init(_ entry: EventEntry) {
        let message = MessageID(rawValue: entry.messageId ?? 0)
        let conversation = ConversationID(rawValue: entry.conversationId ?? 0)
        switch entry.kind {
        case .received:
            self = .messageReceived(message, in: conversation)
        case .request:
            self = .messageRequest(message, from: ContactID(rawValue: entry.contactId ?? 0), in: conversation)
        case .statusChanged:
            self = .statusChanged(message, in: conversation, to: Message.Status(rawValue: entry.detail ?? "") ?? .failed)
        case .typing:
            self = .typing(ContactID(rawValue: entry.contactId ?? 0), isTyping: entry.detail == EventEntry.typingActive)
        case .reactionChanged:
            self = .reactionChanged(message, in: conversation)
        case .groupChanged:
            self = .groupChanged(conversation)
        case .resent:
            self = .resent(message)
        case .quarantined:
            self = .undecryptable(reason: entry.detail ?? "")
        case .awaitingResend:
            self = .awaitingResend(reason: entry.detail ?? "")
        case .edited:
            self = .messageEdited(message, in: conversation)
        case .erased:
            self = .messageDeleted(message, in: conversation)
        case .timerChanged:
            self = .disappearingTimerChanged(conversation, seconds: entry.detail.flatMap { Int64($0) })
        case .fileChanged:
            self = .fileChanged(AttachmentID(rawValue: entry.attachmentId ?? 0), of: message, in: conversation)
        }
    }
}

extension Date {
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
