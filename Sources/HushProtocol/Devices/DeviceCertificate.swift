import HushCrypto

/// The account's word that a device key is one of its devices
/// (docs/PROTOCOL.md §20.10), carried in a device prekey message so that a
/// receiver knows whose device starts the session before the device list
/// arrives, without asking the relay:
///
///     certificate = Ed25519(IK.private, "hush/v1/device-certificate" 0x00 || IK || DK)
///
/// Every device of the account can make it (each holds the account seed).
/// It does not expire: a receiver that holds a list revoking the device
/// refuses it; one that holds no list of the account accepts it, as it would
/// accept that device's list (§20.14).
public struct DeviceCertificate: Sendable, Equatable {
    public static let signatureLength = Ed25519.signatureLength
    /// account key || signature, as a device prekey message carries them after the device key.
    public static let encodedLength = IdentityKey.length + signatureLength

    public let account: IdentityKey
    public let device: Ed25519.PublicKey
    public let signature: [UInt8]

    /// Signs `device` as a device of `account`.
    public init(account: IdentityKeyPair, device: Ed25519.PublicKey) {
        self.account = account.publicKey
        self.device = device
        self.signature = account.signingKey.signature(for: Self.signed(account: account.publicKey, device: device))
    }

    /// Checks a certificate as a receiver does (§20.10, receiving step 1):
    /// a device key with an X25519 image and other than the account key, an
    /// account key with one, and the signature (strict). Any failure is
    /// `malformed`: one generic error, as §9.3 step 2 asks of everything in
    /// the sealed layer.
    public init(account: IdentityKey, device: Ed25519.PublicKey, signature: [UInt8]) throws(ProtocolError) {
        guard !ConstantTime.equals(account.rawRepresentation, device.rawRepresentation),
              (try? account.agreementKey()) != nil,
              (try? IdentityKey(device).agreementKey()) != nil,
              account.signingKey.isValidSignature(signature, for: Self.signed(account: account, device: device))
        else { throw .malformed(what: "device certificate") }
        self.account = account
        self.device = device
        self.signature = signature
    }

    static func signed(account: IdentityKey, device: Ed25519.PublicKey) -> [UInt8] {
        Labels.deviceCertificate + account.rawRepresentation + device.rawRepresentation
    }
}
