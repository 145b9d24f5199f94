import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/device-directory.json (docs/PROTOCOL.md §20.9, §20.10), one case per `kind`:
/// - `directory`: from the account seed, the blinding factor, the blinded
///   name and the record key; the list sealed with the given nonce is the
///   record, which opens to the list; the write's message and signature are
///   byte for byte what the account makes, and the signature verifies as a
///   plain Ed25519 signature under the name (what a relay checks);
/// - `refused`: the record, given with `counter`, is refused with `error`
///   (a reason of §20.9, or of §20.3 for the list inside);
/// - `device_prekey_message`: the device's certificate, and the inner
///   plaintext of a device prekey message read field by field and written
///   back byte for byte; `forged_inner` (a certificate bit flipped) is refused.
public struct DeviceDirectorySuite: VectorSuite {
    public let name = "hush-device-directory"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        switch try fields.string("kind") {
        case "directory": try directory(fields)
        case "refused": try refused(fields)
        case "device_prekey_message": try devicePrekeyMessage(fields)
        case let other: throw VectorFailure("unknown kind '\(other)'")
        }
    }

    private func directory(_ fields: CaseFields) throws {
        let account = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("account_identity_seed")))
        try expectHex(account.publicKey.rawRepresentation, try fields.hex("account_identity_key"), "account identity key")
        try expectHex(Ed25519Blinding.factor(label: Labels.directoryBlind, publicKey: account.publicKey.signingKey),
                      try fields.hex("blinding_factor"), "blinding factor h")
        let directory = try DeviceDirectory(account: account.publicKey)
        try expectHex(directory.name.rawRepresentation, try fields.hex("name"), "blinded name BK")
        try expectHex(directory.recordKey.copyBytes(), try fields.hex("key"), "record key")
        let counter = UInt64(try fields.int("counter"))
        let list = try DeviceList.decode(try fields.hex("list"), account: account.publicKey)
        let record = try fields.hex("record")
        try expectHex(try directory.seal(list, nonce: try fields.hex("nonce")), record, "record")
        try expectHex(try directory.open(record, counter: counter).encoded, list.encoded, "opened record")
        let put = DeviceDirectory.putMessage(name: directory.name, counter: counter, record: record)
        try expectHex(put, try fields.hex("put"), "write message")
        let signature = try fields.hex("put_signature")
        try expectHex(try DeviceDirectory.Writer(account: account).signPut(counter: counter, record: record), signature, "write signature")
        guard directory.name.isValidSignature(signature, for: put),
              DeviceDirectory.isValidPut(signature: signature, name: directory.name, counter: counter, record: record) else {
            throw VectorFailure("the write signature does not verify under the blinded name")
        }
        guard !DeviceDirectory.isValidPut(signature: signature, name: directory.name, counter: counter + 1, record: record) else {
            throw VectorFailure("the write signature verifies for another counter")
        }
    }

    private func refused(_ fields: CaseFields) throws {
        let expected = try fields.string("error")
        let directory = try DeviceDirectory(account: try IdentityKey(rawRepresentation: try fields.hex("account_identity_key")))
        do {
            _ = try directory.open(try fields.hex("record"), counter: UInt64(try fields.int("counter")))
            throw VectorFailure("the record was opened; it must be refused as \(expected)")
        } catch let ProtocolError.directoryRecordRefused(problem) {
            try expectEqual(problem.rawValue, expected, "refusal")
        } catch let ProtocolError.deviceListRefused(problem) {
            try expectEqual(problem.rawValue, expected, "refusal of the list inside")
        }
    }

    private func devicePrekeyMessage(_ fields: CaseFields) throws {
        let account = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("account_identity_seed")))
        let device = try Ed25519.PrivateKey(seed: SecureBytes(copying: try fields.hex("device_seed")))
        try expectHex(device.publicKey.rawRepresentation, try fields.hex("device_key"), "device key")
        let certificate = DeviceCertificate(account: account, device: device.publicKey)
        try expectHex(certificate.signature, try fields.hex("certificate"), "certificate")
        let inner = try fields.hex("inner")
        let opened = try OpenedEnvelope.decodeAcceptingDevices(inner)
        try expectHex(opened.sender.rawRepresentation, device.publicKey.rawRepresentation, "sender (the device key)")
        try expectHex(opened.deviceCertificate?.account.rawRepresentation ?? [], account.publicKey.rawRepresentation, "account key")
        try expectHex(opened.deviceCertificate?.signature ?? [], certificate.signature, "certificate read")
        try expectHex(opened.handshake?.encoded ?? [], try fields.hex("handshake_init"), "handshake init")
        try expectHex(opened.ratchetMessage, try fields.hex("ratchet_message"), "ratchet message")
        try expectHex(opened.encoded, inner, "inner plaintext written back")
        do {
            _ = try OpenedEnvelope.decodeAcceptingDevices(try fields.hex("forged_inner"))
            throw VectorFailure("a forged certificate was read")
        } catch ProtocolError.malformed {
            try expectEqual("malformed", try fields.string("forged_error"), "refusal")
        }
    }
}
