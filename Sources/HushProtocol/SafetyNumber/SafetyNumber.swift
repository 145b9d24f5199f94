import HushCrypto

/// A safety number both users compare: 60 digits (12 groups of 5) and a
/// scannable code. Hush uses, for each side, key = the 32-byte Ed25519
/// identity key and stable id = the UTF-8 bytes of its `hush1…` address,
/// 5200 iterations and scannable version 2. When either identity key
/// changes, the number changes.
public struct SafetyNumber: Sendable, Equatable {
    /// The scannable version Hush emits (libsignal's current one).
    public static let hushScannableVersion: UInt32 = 2

    /// 60 digits, the lower side's 30 first (identical on both ends).
    public let digits: String
    public let scannable: ScannableFingerprint

    /// The generic algorithm (libsignal's `Fingerprint::new`).
    public init(version: UInt32, iterations: Int = NumericFingerprint.iterations, localKey: [UInt8], localStableID: [UInt8],
                remoteKey: [UInt8], remoteStableID: [UInt8]) throws(ProtocolError) {
        let local = try NumericFingerprint.hash(key: localKey, stableID: localStableID, iterations: iterations)
        let remote = try NumericFingerprint.hash(key: remoteKey, stableID: remoteStableID, iterations: iterations)
        let l = NumericFingerprint.digits(local), r = NumericFingerprint.digits(remote)
        digits = l < r ? l + r : r + l
        scannable = ScannableFingerprint(version: version, localHash: local, remoteHash: remote)
    }

    /// Hush's safety number between two identities.
    public init(local: IdentityKey, remote: IdentityKey) {
        try! self.init(version: SafetyNumber.hushScannableVersion,
                       localKey: local.rawRepresentation, localStableID: Array(local.address.description.utf8),
                       remoteKey: remote.rawRepresentation, remoteStableID: Array(remote.address.description.utf8))
    }

    /// "12345 67890 …": 12 groups of 5 digits.
    public var grouped: String {
        let chars = Array(digits)
        return stride(from: 0, to: chars.count, by: 5).map { String(chars[$0..<min($0 + 5, chars.count)]) }.joined(separator: " ")
    }

    /// Compares digits a user typed or read (spaces ignored) in constant time.
    public func matches(displayed: String) -> Bool {
        let typed = Array(displayed.utf8.filter { $0 != UInt8(ascii: " ") })
        return ConstantTime.equals(typed, Array(digits.utf8))
    }
}
