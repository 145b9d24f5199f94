import HushCrypto
@_spi(Vectors) import HushProtocol

/// The linked-device formats (docs/PROTOCOL.md §20), each read by the parser
/// a contact or a new device runs on bytes someone else chose. The first
/// input byte picks the format; the rest is the input.
enum DeviceInputs {
    static func check(_ input: [UInt8]) {
        guard let selector = input.first else { return }
        let bytes = Array(input.dropFirst())
        let live = LiveSession.shared
        switch selector % 5 {
        case 0:
            // A device list of Alice's account, verified against nothing held, then against itself.
            guard let list = try? DeviceList.decode(bytes, account: live.alice.publicKey) else { return }
            var verifier = DeviceListVerifier(account: live.alice.publicKey)
            _ = try? verifier.accept(bytes)
            _ = try? verifier.check(list.encoded)
            _ = list.fingerprint.digits
        case 1:
            // A link code as typed; one that reads gives its keys.
            guard let code = try? LinkCode(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
            _ = try? code.keys()
        case 2:
            // A directory record the relay returned for Alice, with the counter in its first 8 bytes.
            guard bytes.count >= 8 else { return }
            let counter = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            _ = try? live.aliceDirectory.open(Array(bytes.dropFirst(8)), counter: counter)
        case 3:
            // The inner plaintext of a sealed envelope, device prekey messages included.
            _ = try? OpenedEnvelope.decodeAcceptingDevices(bytes)
        default:
            // A link's channel message as opened (§20.6); one that reads encodes to the same bytes.
            guard let message = try? LinkMessage(decoding: bytes) else { return }
            precondition(message.encoded == bytes, "a link message does not encode to the bytes it was read from")
        }
    }
}
