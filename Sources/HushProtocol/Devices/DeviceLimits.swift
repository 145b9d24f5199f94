/// Bounds of device lists (docs/PROTOCOL.md §14, §20.2); receivers refuse anything beyond them.
public enum DeviceLimits {
    /// Active devices: what every message to the account is encrypted for, once each.
    public static let maxActiveDevices = 16
    /// Entries, active and revoked together: revoked entries stay for good
    /// (so no list can bring them back), so this is an account's lifetime budget of links.
    public static let maxEntries = 128
    public static let maxNameLength = 64
    public static let version: UInt8 = 0x01
    public static let signatureLength = 64
    /// version || account key || counter || created at || signer || count.
    public static let headerLength = 1 + 32 + 8 + 8 + DeviceID.length + 1
    /// device id || device key || added at || state || revoked at || name length || proof, without the name.
    public static let entryFixedLength = DeviceID.length + 32 + 8 + 1 + 8 + 1 + signatureLength
    /// A header, no entry, and the two signatures.
    public static let minimumListLength = headerLength + 2 * signatureLength
    /// A header, every entry with the longest name, and the two signatures: 25 026 bytes.
    public static let maximumListLength = headerLength + maxEntries * (entryFixedLength + maxNameLength) + 2 * signatureLength
}
