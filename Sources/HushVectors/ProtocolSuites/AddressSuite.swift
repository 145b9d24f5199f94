import HushCrypto
import HushProtocol

/// Vectors/protocol/address.json: identity seed -> key -> `hush1…` address,
/// and strings that MUST be rejected with the problem named.
public struct AddressSuite: VectorSuite {
    public let name = "hush-address"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let text = try fields.string("address")
        if let problem = testCase["error"] as? String {
            do {
                _ = try HushAddress(parsing: text)
                throw VectorFailure("'\(text)' was accepted; expected \(problem)")
            } catch let ProtocolError.invalidAddress(actual) {
                try expectEqual(String(describing: actual), problem, "rejection reason")
            }
            return
        }
        let identity = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("identity_seed")))
        try expectHex(identity.publicKey.rawRepresentation, try fields.hex("identity_key"), "identity key")
        try expectEqual(identity.address.description, text, "address")
        try expectHex(try HushAddress(parsing: text).identityKey.rawRepresentation, try fields.hex("identity_key"), "decoded key")
    }
}
