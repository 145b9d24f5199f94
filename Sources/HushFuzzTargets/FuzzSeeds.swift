import Foundation
import HushCrypto
@_spi(Fuzzing) import HushKeystore
@_spi(Vectors) import HushProtocol
import HushRelayAPI

/// Seed inputs for each target, made by the real encoders and taken from the
/// protocol vectors, so fuzzing starts from inputs that pass the first
/// checks. `make fuzz-seeds` writes them to Fuzz/Corpus (committed).
public enum FuzzSeeds {
    /// The relay origin the seed token request signs for.
    static let seedOrigin = RelayOrigin(scheme: "https", host: "relay.example.org", port: 443)

    public static func generate(vectorsDirectory: URL) throws -> [FuzzTarget: [[UInt8]]] {
        let vectors = try ProtocolVectorFields(directory: vectorsDirectory)
        let live = LiveSession.shared
        let bobAddress = HushAddress(identityKey: live.bob.publicKey)
        let signed = try PrivatePrekey.generate(kind: .signedX25519, id: 7, identity: live.bob)
        let kem = try PrivatePrekey.generate(kind: .lastResortKEM, id: 8, identity: live.bob)
        let oneTime = try PrivatePrekey.generate(kind: .oneTimeX25519, id: 9, identity: live.bob)
        let bundle = try PrekeyBundle(identityKey: live.bob.publicKey, signedPrekey: signed.signed, kemPrekey: kem.signed,
                                      oneTimePrekey: oneTime.signed)
        let aliceSession = try Session.initiate(identity: live.alice, to: bobAddress, bundle: bundle)
        let text = try Content(id: MessageID(bytes: [UInt8](repeating: 0x42, count: 16)), sentAt: 1_800_000_000_000,
                               body: .text("a seed message")).encoded()
        let envelope = try aliceSession.seal(text)
        let opened = try SealedSender.open(envelope, recipient: live.bob)
        let encoder = JSONEncoder()
        func json<T: Encodable>(_ selector: UInt8, _ value: T) throws -> [UInt8] { [selector] + Array(try encoder.encode(value)) }

        let registration = RegisterRequest.signed(identity: live.bob.signingKey, signedPrekey: signed.signed,
                                                  lastResortKEMPrekey: kem.signed, oneTimePrekeys: [oneTime.signed],
                                                  timestamp: 1_800_000_000_000)
        let nonce = [UInt8](repeating: 0x11, count: 32)
        let deposit = DepositRequest(requestID: "seed-request-1", envelope: Base64Bytes(envelope), credential: nil,
                                     work: Base64Bytes([UInt8](repeating: 0, count: 8)))
        let mailboxMessage = MailboxMessage(messageID: 1, timestamp: 1_800_000_000_000, expiresAt: 1_802_592_000_000,
                                            envelope: Base64Bytes(envelope))
        let keystore = KeystoreContents(identitySeed: SecureBytes(copying: [UInt8](repeating: 1, count: 32)),
                                        databaseKey: SecureBytes(copying: [UInt8](repeating: 2, count: 32)), createdAt: 1)
        let header = KeystoreHeader(cost: .minimum, salt: [UInt8](repeating: 3, count: Argon2id.saltLength),
                                    nonce: [UInt8](repeating: 4, count: XChaCha20Poly1305.nonceLength))
        let applicationKeyHeader = KeystoreHeader(keyDerivation: .applicationKey, salt: [UInt8](repeating: 3, count: Argon2id.saltLength),
                                                  nonce: [UInt8](repeating: 4, count: XChaCha20Poly1305.nonceLength))

        // Alice's account with one device: a list, its directory record and a write of it.
        let device = try Ed25519.PrivateKey(seed: SecureBytes(copying: [UInt8](repeating: 0xD1, count: 32)))
        let entry = try DeviceListEntry.linking(device, to: live.alice.publicKey, name: "fuzz phone", addedAt: 1_800_000_000_000)
        let list = try DeviceList.sign(account: live.alice, counter: 3, createdAt: 1_800_000_000_000, signer: device, entries: [entry])
        let writer = try DeviceDirectory.Writer(account: live.alice)
        let record = try writer.directory.seal(list, nonce: [UInt8](repeating: 0x24, count: 24))
        var counterBytes: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { counterBytes.append(UInt8(truncatingIfNeeded: list.counter >> UInt64(shift))) }
        let write = DirectoryWriteRequest(record: record, counter: list.counter, signature: writer.signPut(counter: list.counter, record: record))

        return [
            .devices: [[0] + list.encoded, [2] + counterBytes + record]
                + vectors.strings("text").filter { !$0.isEmpty }.prefix(4).map { [1] + Array($0.utf8) }
                + vectors.hex("inner").map { [3] + $0 } + vectors.hex("forged_inner").map { [3] + $0 }
                + [LinkMessage.archivePart(index: 3, blobID: String(repeating: "ab", count: 32), length: 64 << 20,
                                           sha256: [UInt8](repeating: 9, count: 32)),
                   .archiveEnd(parts: 4, length: 200 << 20), .partReceived(index: 3), .declined,
                   .admit(accountSeed: SecureBytes(copying: [UInt8](repeating: 7, count: 32)),
                          recoveryKey: SecureBytes(copying: [UInt8](repeating: 8, count: 32)), recoveryKeyCounter: 3, list: list.encoded),
                  ].map { [4] + $0.encoded },
            .sealedSender: [envelope] + vectors.hex("envelope"),
            .ratchet: [opened.ratchetMessage] + vectors.hex("ratchet_message"),
            .sessionState: [live.bobStateBytes, aliceSession.serialized().copyBytes()],
            .content: [text, try Padding.pad(text)] + vectors.hex("encoded") + vectors.hex("content")
                + vectors.hex("distribution_content") + vectors.hex("leave_content"),
            .padding: [try Padding.pad(text), try Padding.pad([])],
            .address: ([bobAddress.description] + vectors.strings("address")).map { Array($0.utf8) },
            .bundle: [signed.signed.encoded, kem.signed.encoded, Array(try encoder.encode(PrekeyBundleDTO(bundle)))],
            .safetyNumber: vectors.hex("scannable") + vectors.hex("alice_scannable") + vectors.hex("bob_scannable"),
            .keystore: [header.encoded + [UInt8](repeating: 5, count: 120), applicationKeyHeader.encoded + [UInt8](repeating: 5, count: 120),
                        keystore.encoded().copyBytes()],
            .relayRequest: [
                try json(0, registration),
                try json(1, UploadPrekeysRequest(oneTimePrekeys: [SignedPrekeyDTO(oneTime.signed)])),
                try json(2, TokenRequest(identityKey: Base64Bytes(live.bob.publicKey.rawRepresentation), nonce: Base64Bytes(nonce),
                                         signature: Base64Bytes(AuthChallenge.sign(nonce: nonce, origin: seedOrigin, with: live.bob.signingKey)),
                                         origin: seedOrigin.description)),
                try json(3, ChallengeRequest(identityKey: Base64Bytes(live.bob.publicKey.rawRepresentation))),
                try json(4, deposit),
                try json(5, AckRequest(messageIDs: [1, 2, UInt64.max])),
                try json(6, CredentialsRequest(add: [Base64Bytes(nonce)], remove: [Base64Bytes(nonce)])),
                try json(7, SocketClientFrame(recipient: Base64Bytes(nonce), credential: Base64Bytes(nonce), envelope: Base64Bytes(envelope))),
                try json(8, SocketServerEvent.message(mailboxMessage)),
                try json(9, SyncResponse(messages: [mailboxMessage], hasMore: true)),
                try json(10, PrekeyBundleDTO(bundle)),
                try json(11, RelayErrorBody(code: .rateLimited, message: "slow down")),
                try json(4, FanOutRequest(requestID: "seed-fanout-1", envelope: Base64Bytes(envelope), recipients: [
                    .init(mailbox: Base64Bytes(live.bob.publicKey.rawRepresentation), credential: Base64Bytes(nonce)),
                    .init(mailbox: Base64Bytes(live.alice.publicKey.rawRepresentation), work: Base64Bytes([UInt8](repeating: 0, count: 8))),
                ], envelopeSHA256: Base64Bytes(EnvelopeDigest.of(envelope)))),
                try json(12, write),
                try json(12, DirectoryDTO(record: record, counter: list.counter)),
                try json(11, FanOutResponse(results: [.stored(messageID: 1, timestamp: 1_800_000_000_000),
                                                      FanOutRecipientResult(status: 428, error: "work_required", message: "work", workBits: 16)])),
            ],
            .vectorFile: try vectors.files.map { Array(try Data(contentsOf: $0)) },
            // attachment.json's small blobs (padded), whole and in small pieces, and one that claims a
            // size one byte off; and a three-chunk blob sealed here.
            .attachmentBlob: [try multiChunkBlob()] + vectors.attachmentBlobs().flatMap { blob in
                [AttachmentBlobInput.encode(key: blob.key, plaintextSize: blob.size, pieceSelector: 255, blob: blob.blob),
                 AttachmentBlobInput.encode(key: blob.key, plaintextSize: blob.size, pieceSelector: 0, blob: blob.blob),
                 AttachmentBlobInput.encode(key: blob.key, plaintextSize: blob.size + 1, pieceSelector: 3, blob: blob.blob)]
            },
        ]
    }
}

/// A blob of three chunks (the last one short), sealed with a fixed key.
private func multiChunkBlob() throws -> [UInt8] {
    let key = [UInt8](repeating: 7, count: 32), size = 2 * AttachmentBlob.chunkSize + 100
    let sealer = try AttachmentSealer(key: SecureBytes(copying: key), plaintextSize: UInt64(size))
    let blob = try sealer.sealAll((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }) + [UInt8](repeating: 0, count: Int(sealer.paddingLength))
    return AttachmentBlobInput.encode(key: key, plaintextSize: UInt32(size), pieceSelector: 200, blob: blob)
}

/// Field values from every case of the protocol vector files.
private struct ProtocolVectorFields {
    let files: [URL]
    private let cases: [[String: Any]]

    init(directory: URL) throws {
        let protocolDirectory = directory.appendingPathComponent("protocol")
        files = try FileManager.default.contentsOfDirectory(atPath: protocolDirectory.path)
            .filter { $0.hasSuffix(".json") }.sorted().map { protocolDirectory.appendingPathComponent($0) }
        cases = try files.flatMap { file -> [[String: Any]] in
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
            return object?["cases"] as? [[String: Any]] ?? []
        }
    }

    func strings(_ key: String) -> [String] { cases.compactMap { $0[key] as? String } }
    func hex(_ key: String) -> [[UInt8]] { strings(key).compactMap { try? Hex.decode($0) } }

    /// attachment.json's cases: key, plaintext size and the padded blob.
    func attachmentBlobs() -> [(key: [UInt8], size: UInt32, blob: [UInt8])] {
        cases.compactMap { item in
            guard let key = (item["key"] as? String).flatMap({ try? Hex.decode($0) }),
                  let plaintext = (item["plaintext"] as? String).flatMap({ try? Hex.decode($0) }),
                  let sealed = (item["sealed"] as? String).flatMap({ try? Hex.decode($0) }),
                  let length = item["blob_length"] as? Int, length >= sealed.count else { return nil }
            return (key, UInt32(plaintext.count), sealed + [UInt8](repeating: 0, count: length - sealed.count))
        }
    }
}
