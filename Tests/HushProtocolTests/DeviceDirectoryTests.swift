import HushCrypto
@_spi(Vectors) import HushProtocol
import HushTesting
import Testing

/// An account's directory (PROTOCOL §20.9) and a device's certificate
/// (§20.10): the record opens only with the address it was sealed for and
/// only to that account's list; only the account writes; a certificate
/// binds the device to the account.
@Suite struct DeviceDirectoryTests {
    let random = DeterministicRandom(seed: "directory")

    func account(_ seed: String) -> IdentityKeyPair { IdentityKeyPair.generate(using: DeterministicRandom(seed: seed)) }

    func list(of account: IdentityKeyPair, counter: UInt64 = 1) throws -> (DeviceList, Ed25519.PrivateKey) {
        let device = Ed25519.PrivateKey(using: DeterministicRandom(seed: "device of \(account.address)"))
        let entry = try DeviceListEntry.linking(device, to: account.publicKey, name: "phone", addedAt: 1_795_000_000_000)
        return (try DeviceList.sign(account: account, counter: counter, createdAt: 1_795_000_000_000, signer: device, entries: [entry]), device)
    }

    @Test func aRecordOpensToTheListWithTheAddressAlone() throws {
        let alice = account("alice")
        let (list, _) = try list(of: alice, counter: 4)
        let record = try DeviceDirectory(account: alice.publicKey).seal(list, using: random)
        #expect(record.count % 1024 == DeviceDirectory.minimumRecordLength % 1024)
        // A contact knows only the public key.
        let reader = try DeviceDirectory(account: try IdentityKey(rawRepresentation: alice.publicKey.rawRepresentation))
        #expect(try reader.open(record, counter: 4) == list)
        #expect(throws: ProtocolError.directoryRecordRefused(.counterMismatch)) { try reader.open(record, counter: 5) }
        // Bob's directory key does not open Alice's record, and its name differs.
        let bob = try DeviceDirectory(account: account("bob").publicKey)
        #expect(throws: ProtocolError.directoryRecordRefused(.notOpened)) { try bob.open(record, counter: 4) }
        #expect(bob.name != reader.name)
        // Alice's list sealed under Bob's key is refused: a directory holds its own account's list only.
        #expect(throws: ProtocolError.deviceListRefused(.wrongAccount)) { try bob.seal(list, using: random) }
    }

    @Test func theNameIsNotTheAddressAndTheDescriptionHidesTheKey() throws {
        let alice = account("alice")
        let directory = try DeviceDirectory(account: alice.publicKey)
        #expect(directory.name.rawRepresentation != alice.publicKey.rawRepresentation)
        #expect(String(describing: directory).contains(Hex.encode(directory.name.rawRepresentation)))
        #expect(!String(describing: directory).contains(Hex.encode(directory.recordKey.copyBytes())))
    }

    @Test func onlyTheAccountWritesAndAWriteCoversCounterAndRecord() throws {
        let alice = account("alice"), mallory = account("mallory")
        let (list, _) = try list(of: alice, counter: 2)
        let writer = try DeviceDirectory.Writer(account: alice)
        let record = try writer.directory.seal(list, using: random)
        let signature = writer.signPut(counter: 2, record: record)
        let name = writer.directory.name
        #expect(DeviceDirectory.isValidPut(signature: signature, name: name, counter: 2, record: record))
        #expect(!DeviceDirectory.isValidPut(signature: signature, name: name, counter: 3, record: record))
        var other = record
        other[other.count - 1] ^= 1
        #expect(!DeviceDirectory.isValidPut(signature: signature, name: name, counter: 2, record: other))
        // Someone else's account key (or the plain identity key) signs nothing valid for Alice's name.
        let forged = try DeviceDirectory.Writer(account: mallory).signPut(counter: 2, record: record)
        #expect(!DeviceDirectory.isValidPut(signature: forged, name: name, counter: 2, record: record))
        let plain = alice.signingKey.signature(for: DeviceDirectory.putMessage(name: name, counter: 2, record: record))
        #expect(!DeviceDirectory.isValidPut(signature: plain, name: name, counter: 2, record: record))
    }

    @Test func aCertificateBindsTheDeviceToTheAccount() throws {
        let alice = account("alice"), mallory = account("mallory")
        let (_, device) = try list(of: alice)
        let certificate = DeviceCertificate(account: alice, device: device.publicKey)
        #expect(throws: Never.self) {
            try DeviceCertificate(account: alice.publicKey, device: device.publicKey, signature: certificate.signature)
        }
        // Another account's certificate for the same device, the certificate moved to another
        // device, and the account key as its own device are refused.
        let other = Ed25519.PrivateKey(using: random)
        #expect(throws: ProtocolError.self) {
            try DeviceCertificate(account: alice.publicKey, device: device.publicKey,
                                  signature: DeviceCertificate(account: mallory, device: device.publicKey).signature)
        }
        #expect(throws: ProtocolError.self) {
            try DeviceCertificate(account: alice.publicKey, device: other.publicKey, signature: certificate.signature)
        }
        #expect(throws: ProtocolError.self) {
            try DeviceCertificate(account: alice.publicKey, device: alice.publicKey.signingKey,
                                  signature: DeviceCertificate(account: alice, device: alice.publicKey.signingKey).signature)
        }
    }

    @Test func theMessengerStillRefusesDevicePrekeyMessages() throws {
        // Until sessions are filed per device (§20.10 is designed, not yet in use), the
        // ordinary reader refuses type 0x03 as an unknown type; vectors read it.
        let alice = account("alice")
        let (_, device) = try list(of: alice)
        let handshake = try HandshakeInit(ephemeralKey: X25519.PrivateKey(using: random).publicKey, signedPrekeyID: 1, oneTimePrekeyID: nil,
                                          kemPrekeyKind: .lastResortKEM, kemPrekeyID: 1, kemCiphertext: random.bytes(1088))
        let opened = OpenedEnvelope(sender: IdentityKey(device.publicKey), handshake: handshake, ratchetMessage: random.bytes(400),
                                    deviceCertificate: DeviceCertificate(account: alice, device: device.publicKey))
        let bob = account("bob")
        let envelope = try SealedSender.seal(opened, to: bob.publicKey, using: random)
        #expect(throws: ProtocolError.malformed(what: "sealed envelope message type")) { try SealedSender.open(envelope, recipient: bob) }
        #expect(try OpenedEnvelope.decodeAcceptingDevices(opened.encoded).deviceCertificate == opened.deviceCertificate)
    }
}
