import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/device-list.json (docs/PROTOCOL.md §20.1–§20.4), one
/// case per `kind`:
/// - `build`: from the account's and devices' seeds, every device key, id
///   and proof, the list's body, both signatures, the whole list and its
///   fingerprint must come out byte for byte (Ed25519 signatures are
///   deterministic), and the list must decode to the same devices;
/// - `sequence`: lists given in order to one verifier of the account; each
///   step's `result` is `accepted`, `unchanged`, or the name of the rule of
///   §20.3 that refuses it (a refused list changes nothing). A step with
///   `account_key_device` names the entry then marked as keeping the
///   account key (empty: none) and `account_key_retired` whether it is
///   revoked (§20.13, §20.14).
/// A device of a `build` case with `keeps_account_key` is marked so.
public struct DeviceListSuite: VectorSuite {
    public let name = "hush-device-list"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        switch try fields.string("kind") {
        case "build": try build(fields)
        case "sequence": try sequence(fields)
        case let other: throw VectorFailure("unknown kind '\(other)'")
        }
    }

    private func build(_ fields: CaseFields) throws {
        let account = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("account_identity_seed")))
        try expectHex(account.publicKey.rawRepresentation, try fields.hex("account_identity_key"), "account identity key")
        var devices: [Ed25519.PrivateKey] = []
        var entries: [DeviceListEntry] = []
        for (index, device) in try fields.list("devices").map(CaseFields.init).enumerated() {
            let key = try Ed25519.PrivateKey(seed: SecureBytes(copying: try device.hex("device_seed")))
            var entry = try DeviceListEntry.linking(key, to: account.publicKey, name: try device.string("name"),
                                                    addedAt: UInt64(try device.int("added_at")))
            switch try device.string("state") {
            case "active": break
            case "revoked": entry = entry.revoked(at: UInt64(try device.int("revoked_at")))
            case let other: throw VectorFailure("device \(index): unknown state '\(other)'")
            }
            if device.values["keeps_account_key"] as? Bool == true { entry = entry.keepingAccountKey() }
            try expectHex(key.publicKey.rawRepresentation, try device.hex("device_key"), "device \(index) key")
            try expectHex(entry.id.bytes, try device.hex("device_id"), "device \(index) id")
            try expectHex(entry.proof, try device.hex("proof"), "device \(index) proof")
            devices.append(key)
            entries.append(entry)
        }
        let signerIndex = try fields.int("signer")
        guard devices.indices.contains(signerIndex) else { throw VectorFailure("signer \(signerIndex) is not a device of the case") }
        let list = try DeviceList.sign(account: account, counter: UInt64(try fields.int("counter")), createdAt: UInt64(try fields.int("created_at")),
                                       signer: devices[signerIndex], entries: entries)
        let body = try fields.hex("body")
        try expectHex(Array(list.encoded.dropLast(128)), body, "body")
        try expectHex(Array(list.encoded.suffix(128).prefix(64)), try fields.hex("account_signature"), "account signature")
        try expectHex(Array(list.encoded.suffix(64)), try fields.hex("signer_signature"), "signer signature")
        try expectHex(list.encoded, try fields.hex("list"), "list")
        let decoded = try DeviceList.decode(try fields.hex("list"), account: account.publicKey)
        try expectEqual(decoded.entries.map(\.name), try fields.list("devices").map(CaseFields.init)
            .sorted { try $0.hex("device_id").lexicographicallyPrecedes(try $1.hex("device_id")) }.map { try $0.string("name") }, "decoded names")
        try expectEqual(decoded.fingerprint.digits, try fields.string("fingerprint"), "fingerprint")
        try expectEqual(decoded.fingerprint.grouped, try fields.string("fingerprint_grouped"), "grouped fingerprint")
    }

    private func sequence(_ fields: CaseFields) throws {
        var verifier = DeviceListVerifier(account: try IdentityKey(rawRepresentation: try fields.hex("account_identity_key")))
        let steps = try fields.list("steps").map(CaseFields.init)
        guard !steps.isEmpty else { throw VectorFailure("steps must not be empty") }
        for (index, step) in steps.enumerated() {
            let expected = try step.string("result")
            let actual: String
            do {
                switch try verifier.accept(try step.hex("list")) {
                case .unchanged: actual = "unchanged"
                case .accepted: actual = "accepted"
                }
            } catch let ProtocolError.deviceListRefused(problem) {
                actual = problem.rawValue
            }
            try expectEqual(actual, expected, "step \(index) (\((try? step.string("comment")) ?? ""))")
            if let keeper = step.values["account_key_device"] as? String {
                try expectEqual(verifier.current?.accountKeyDevice.map { Hex.encode($0.id.bytes) } ?? "", keeper, "account key's device after step \(index)")
                try expectEqual(verifier.current?.retiresAccountKey ?? false, (step.values["account_key_retired"] as? Bool ?? false), "account key retired after step \(index)")
            }
            if let fingerprint = step.values["fingerprint"] as? String {
                try expectEqual(verifier.current?.fingerprint.digits ?? "", fingerprint, "fingerprint after step \(index)")
            }
        }
    }
}
