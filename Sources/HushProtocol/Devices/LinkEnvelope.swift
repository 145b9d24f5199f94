/// How a link's greetings and channel messages travel through the link
/// mailbox (docs/PROTOCOL.md §20.6): both devices deposit into one relay
/// mailbox and both read it, so each envelope says which side sent it, and
/// is padded to the relay's smallest envelope (434 bytes, §9.1), which a
/// 65-byte greeting would be refused under.
///
///     link envelope = sender (u8: 0x01 new device, 0x02 existing device) || length (u16) || message
///                     || zero bytes up to 434 in all (none when longer)
public enum LinkEnvelope {
    /// The relay's smallest envelope (§9.1, `SealedSender.minimumLength`).
    public static let minimumLength = 434
    /// A link message is at most a u16's worth of bytes (the `admit` of a full list is 25 KiB).
    public static let maximumMessageLength = Int(UInt16.max)

    /// Which device deposited an envelope.
    public enum Sender: UInt8, Sendable {
        case newDevice = 0x01
        case existingDevice = 0x02
    }

    /// `message` framed and padded for the link mailbox.
    public static func wrap(_ message: [UInt8], from sender: Sender) throws(ProtocolError) -> [UInt8] {
        guard message.count <= maximumMessageLength else { throw .limitExceeded(what: "link message longer than 65,535 bytes") }
        var out: [UInt8] = [sender.rawValue, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        out += message
        if out.count < minimumLength { out += [UInt8](repeating: 0, count: minimumLength - out.count) }
        return out
    }

    /// The sender and message of an envelope, or nil when it is not a link
    /// envelope (a reader ignores what it cannot read, as it ignores a bad greeting).
    public static func unwrap(_ envelope: [UInt8]) -> (sender: Sender, message: [UInt8])? {
        guard envelope.count >= 3, let sender = Sender(rawValue: envelope[0]) else { return nil }
        let length = Int(envelope[1]) << 8 | Int(envelope[2])
        guard envelope.count >= 3 + length else { return nil }
        let padding = envelope[(3 + length)...]
        guard envelope.count == max(minimumLength, 3 + length), padding.allSatisfy({ $0 == 0 }) else { return nil }
        return (sender, Array(envelope[3..<(3 + length)]))
    }
}
