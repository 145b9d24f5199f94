import Foundation
import HushKit

/// `hush export --format json`: one document, `hush-export.json`, whose
/// schema docs/EXPORT.md writes down (format version 1). Each message is
/// the object `hush history --json` prints (`HistoryCommand.json`) with the
/// fields an export needs besides: who wrote it, when (ISO 8601, UTC) and
/// its file.
enum ExportJSON {
    static let fileName = "hush-export.json"
    static let formatVersion = 1

    static func document(_ conversations: [ExportedConversation], account: HushAccount, exportedAt: Date) throws -> Data {
        var top: [String: Any] = [
            "format": "hush-export", "version": formatVersion, "account": account.address,
            "exportedAt": timestamp(exportedAt), "conversations": conversations.map(conversation),
        ]
        if let restored = account.restoredFromBackupAt { top["restoredFromBackup"] = timestamp(restored) }
        var data = try JSONSerialization.data(withJSONObject: top, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        data.append(0x0A)
        return data
    }

    static func conversation(_ conversation: ExportedConversation) -> [String: Any] {
        var object: [String: Any] = ["kind": conversation.kind.rawValue, "name": conversation.name,
                                     "messages": conversation.messages.map { message(in: conversation, $0) }]
        if let contact = conversation.contact {
            object["address"] = contact.address
            object["verification"] = contact.verification.rawValue
            if let profile = contact.profileName { object["profileName"] = profile }
        }
        if let group = conversation.group {
            object["standing"] = group.standing.rawValue
            object["members"] = group.members.map { member -> [String: Any] in
                var entry: [String: Any] = ["name": member.name, "address": member.address, "admin": member.isAdmin, "you": member.isYou]
                if let verification = member.verification { entry["verification"] = verification.rawValue }
                return entry
            }
        }
        return object
    }

    static func message(in conversation: ExportedConversation, _ exported: ExportedMessage) -> [String: Any] {
        let message = exported.message
        var object = HistoryCommand.json(message, contact: exported.historyContact, resent: exported.resent,
                                         group: conversation.kind == .group ? conversation.name : nil, receipts: exported.receipts)
        object["sender"] = exported.sender
        object["senderAddress"] = message.senderAddress
        object["sentAt"] = timestamp(sentAt(message))
        if let attachment = exported.attachment {
            var file: [String: Any] = ["id": attachment.id.rawValue, "name": attachment.fileName, "size": attachment.size,
                                       "mediaType": attachment.mediaType, "state": attachment.state.rawValue]
            if exported.fileIsHere {
                file["file"] = ExportNames.file(id: attachment.id.rawValue, peerName: attachment.fileName)
            } else {
                file["file"] = NSNull()
                file["missing"] = exported.missingFile
            }
            object["attachment"] = file
        }
        return object
    }

    /// When the message was sent: when the relay took it, else (not yet
    /// known, or an old message) when its writer wrote it. History shows the same time.
    static func sentAt(_ message: Message) -> Date {
        Date(timeIntervalSince1970: Double(message.relayTimestamp ?? message.createdAt) / 1000)
    }

    /// ISO 8601 in UTC, with milliseconds: `2026-11-26T06:40:00.123Z`.
    static func timestamp(_ date: Date) -> String { isoFormatter.format(date) }

    /// The time a Markdown export shows: minutes, in UTC.
    static func readableTime(_ message: Message) -> String { readableFormatter.string(from: sentAt(message)) }

    private static let isoFormatter = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!)

    private static let readableFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter
    }()
}
