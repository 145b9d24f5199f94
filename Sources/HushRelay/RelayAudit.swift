import Foundation
import HushCrypto

/// What `hush audit relay` prints: every item the relay stores, with the
/// fields it holds, summary counts, and what the relay sees in transit.
public enum RelayAudit {
    /// Opens the data directory's database with its key file, read-mostly
    /// (the schema is migrated if needed), and takes the inventory.
    public static func inventory(dataDirectory: String, keyFile: String? = nil) async throws -> RelayInventory {
        let directory = RelayDataDirectory(path: dataDirectory, keyFile: keyFile)
        let key = try directory.loadKey()
        let storage = try SQLCipherRelayStorage(path: directory.databaseFile, key: key)
        var inventory = try await storage.inventory()
        inventory.uploads = BlobStore(directory: directory.blobDirectory).resumables()
        return inventory
    }

    public static let inTransitParagraph = """
        What the relay sees in transit by design: the recipient mailbox (identity key) of every deposit, \
        the envelope's size and arrival time, the client's IP address and, for authenticated calls and \
        sockets, which identity is connected and when; whether a deposit carried a delivery credential \
        (credential-less deposits are first contacts); blob sizes, upload and download times, and the \
        identity that uploaded each blob (and, until an upload completes, its declared length); for a group \
        message, the set of mailboxes its one fan-out deposit went to (so who shares a group, and its size), \
        but not the group, its name, its admins or which member wrote it; for a device directory, a blinded \
        key it cannot link to any address or identity, the list's counter, the sealed record's padded size, \
        and when it is written and read, and from which address; for an account with linked devices, that \
        one client deposits separately sealed envelopes of similar size into several mailboxes at one moment \
        (a message to each of a contact's devices, a copy to each of the sender's other devices), and that \
        those mailboxes' identities register the same delivery credential hash, so it can group an account's \
        devices (and, from the account key's mailbox among them, tie them to the address's key). It never sees who sent a deposited \
        envelope (no sender field, no token on deposits), message contents, contact lists, or delivery \
        credential tokens (only their SHA-256); envelopes, group envelopes, ephemeral envelopes and blobs \
        are opaque ciphertext to it.
        """

    public static func render(_ inventory: RelayInventory, dataDirectory: String) -> String {
        var lines = ["Relay data directory: \(dataDirectory)", "", "Identities (\(inventory.identities.count)):"]
        for identity in inventory.identities {
            lines.append("  identity \(Hex.encode(identity.identity)) registered \(iso(identity.registeredAt)) "
                         + "signedPrekey #\(identity.signedPrekeyID) lastResortKEM #\(identity.lastResortKEMPrekeyID) "
                         + "oneTimeX25519 \(identity.oneTimeX25519) oneTimeKEM \(identity.oneTimeKEM) credentials \(identity.credentials)")
        }
        lines.append("")
        lines.append("Stored envelopes (\(inventory.messages.count)):")
        for message in inventory.messages {
            lines.append("  mailbox \(Hex.encode(message.mailbox)) message \(message.messageID) at \(iso(message.timestamp)) "
                         + "size \(message.size) B expires \(iso(message.expiresAt))")
        }
        lines.append("")
        lines.append("Blobs (\(inventory.blobs.count)):")
        for blob in inventory.blobs {
            let uploader = blob.uploader.map { " by " + Hex.encode($0) } ?? ""
            lines.append("  blob \(blob.id) size \(blob.size) B uploaded \(iso(blob.createdAt))\(uploader) expires \(iso(blob.expiresAt))")
        }
        // Listed when there are any (linked devices write them); the summary counts them always.
        if !inventory.directories.isEmpty {
            lines.append("")
            lines.append("Device directories (\(inventory.directories.count)):")
            for directory in inventory.directories {
                lines.append("  directory \(Hex.encode(directory.name)) counter \(directory.counter) size \(directory.size) B "
                             + "written \(iso(directory.writtenAt))")
            }
        }
        if !inventory.uploads.isEmpty {
            lines.append("")
            lines.append("Uploads in progress (\(inventory.uploads.count)):")
            for upload in inventory.uploads {
                lines.append("  upload \(upload.id) by \(Hex.encode(upload.uploader)) \(upload.received) of \(upload.length) B")
            }
        }
        lines.append("")
        lines.append("Summary: \(inventory.identities.count) identities, "
                     + "\(inventory.identities.reduce(0) { $0 + $1.oneTimeX25519 }) one-time X25519 prekeys, "
                     + "\(inventory.identities.reduce(0) { $0 + $1.oneTimeKEM }) one-time KEM prekeys, "
                     + "\(inventory.identities.reduce(0) { $0 + $1.credentials }) delivery credential hashes, "
                     + "\(inventory.messages.count) envelopes (\(inventory.messages.reduce(0) { $0 + $1.size }) B), "
                     + "\(inventory.depositRecords) idempotency records, \(inventory.tokens) token hashes, "
                     + "\(inventory.challenges) pending challenges, \(inventory.blobs.count) blobs (\(inventory.blobs.reduce(0) { $0 + $1.size }) B), "
                     + "\(inventory.directories.count) device directories")
        lines.append("")
        lines.append(inTransitParagraph)
        return lines.joined(separator: "\n")
    }

    /// The same inventory as JSON-ready dictionaries.
    public static func json(_ inventory: RelayInventory) -> [String: Any] {
        [
            "identities": inventory.identities.map {
                ["identity": Hex.encode($0.identity), "registeredAt": $0.registeredAt, "signedPrekeyID": $0.signedPrekeyID,
                 "lastResortKEMPrekeyID": $0.lastResortKEMPrekeyID, "oneTimeX25519": $0.oneTimeX25519,
                 "oneTimeKEM": $0.oneTimeKEM, "credentials": $0.credentials] as [String: Any]
            },
            "messages": inventory.messages.map {
                ["mailbox": Hex.encode($0.mailbox), "messageID": $0.messageID, "timestamp": $0.timestamp,
                 "expiresAt": $0.expiresAt, "size": $0.size] as [String: Any]
            },
            "blobs": inventory.blobs.map { blob in
                var object: [String: Any] = ["id": blob.id, "size": blob.size, "createdAt": blob.createdAt, "expiresAt": blob.expiresAt]
                if let uploader = blob.uploader { object["uploader"] = Hex.encode(uploader) }
                return object
            },
            "directories": inventory.directories.map {
                ["name": Hex.encode($0.name), "counter": $0.counter, "size": $0.size, "writtenAt": $0.writtenAt] as [String: Any]
            },
            "uploads": inventory.uploads.map {
                ["id": $0.id, "uploader": Hex.encode($0.uploader), "length": $0.length, "received": $0.received] as [String: Any]
            },
            "summary": ["identities": inventory.identities.count, "messages": inventory.messages.count,
                        "depositRecords": inventory.depositRecords, "tokens": inventory.tokens,
                        "challenges": inventory.challenges, "blobs": inventory.blobs.count, "directories": inventory.directories.count],
            "inTransit": inTransitParagraph,
        ]
    }

    static func iso(_ milliseconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
