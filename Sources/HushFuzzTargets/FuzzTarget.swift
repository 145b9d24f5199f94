import Foundation
import HushCrypto
@_spi(Fuzzing) import HushKeystore
import HushProtocol
import HushRelayAPI
import HushVectors

/// Every parser Hush runs on bytes someone else chose, as one entry point
/// per target. The libFuzzer driver (Fuzz/) calls `run` with each input; the
/// test suite replays the committed corpora and every crash ever found
/// (Fuzz/Corpus/TARGET, Fuzz/Regressions/TARGET) through the same function.
/// An input may be refused (any thrown error is fine); it must never trap,
/// hang or read out of bounds.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The sealed-sender layer: shape check and opening for a fixed recipient.
    case sealedSender = "sealed-sender"
    /// Header and ratchet decryption against a live session.
    case ratchet
    /// A ratchet session as the store keeps it (a damaged database).
    case sessionState = "session-state"
    /// The inner content (text, receipts, attachment pointer, …) after unpadding.
    case content
    /// Padding removal.
    case padding
    /// Addresses (bech32m `hush1…`) as typed or pasted.
    case address
    /// Prekeys in their wire format, and bundles as the relay serves them (JSON).
    case bundle
    /// A scanned safety-number code.
    case safetyNumber = "safety-number"
    /// The keystore file's header and its decrypted payload.
    case keystore
    /// Relay request bodies: registration, prekey upload, auth, deposit, ack,
    /// credentials, and socket frames, each decoded and checked as the relay does.
    case relayRequest = "relay-request"
    /// Vector files (`hush vectors FILE`).
    case vectorFile = "vector-file"
    /// An attachment blob as a relay serves it, opened chunk by chunk (`AttachmentBlobInput`).
    case attachmentBlob = "attachment-blob"
    /// Linked devices: device lists, link codes, directory records, device
    /// prekey messages (`DeviceInputs`).
    case devices

    public static func named(_ name: String) -> FuzzTarget? { FuzzTarget(rawValue: name) }

    /// Decodes a content; a reply, reaction, edit, deletion, timer or expiring
    /// content that decodes must encode back to the same bytes (the sender's
    /// checks and the receiver's agree: an emoji or a timer the receiver
    /// takes is one the sender could have sent).
    static func checkContent(_ input: [UInt8]) {
        guard let content = try? Content(decoding: input) else { return }
        switch content.body {
        case .reply, .reaction, .edit, .deletion, .disappearingTimer, .expiring:
            guard let again = try? content.encoded(), again == input else {
                preconditionFailure("a decoded reply, reaction, edit, deletion, timer or expiring content does not encode back to its bytes")
            }
        default: break
        }
    }

    public func run(_ input: [UInt8]) {
        switch self {
        case .sealedSender:
            _ = try? SealedSender.checkShape(input)
            _ = try? SealedSender.open(input, recipient: LiveSession.shared.bob)
        case .ratchet:
            LiveSession.shared.openAsBob(ratchetMessage: input)
        case .sessionState:
            if let session = try? Session(serialized: SecureBytes(copying: input)) { _ = session.serialized() }
        case .content:
            Self.checkContent(input)
            if let unpadded = try? Padding.unpad(input) { Self.checkContent(unpadded) }
        case .padding:
            _ = try? Padding.unpad(input)
        case .address:
            _ = try? HushAddress(parsing: String(decoding: input, as: UTF8.self))
        case .bundle:
            _ = try? SignedPrekey(encoded: input)
            if let dto = try? JSONDecoder().decode(PrekeyBundleDTO.self, from: Data(input)),
               let bundle = try? dto.bundle() { _ = try? bundle.verify() }
        case .safetyNumber:
            _ = try? ScannableFingerprint(deserializing: input)
        case .keystore:
            _ = try? KeystoreHeader(parsing: input, path: "fuzz")
            _ = try? KeystoreContents(decoding: SecureBytes(copying: input), path: "fuzz")
        case .relayRequest:
            RelayRequestBodies.check(input)
        case .vectorFile:
            _ = try? VectorRunner().run(data: Data(input), path: "fuzz.json")
        case .attachmentBlob:
            AttachmentBlobInput.open(input)
        case .devices:
            DeviceInputs.check(input)
        }
    }
}
