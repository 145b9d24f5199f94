import HushCrypto

/// A message key kept for a message that has not arrived yet, filed under
/// the header key of its chain (the receiver finds the chain by trying the
/// header keys it holds, since headers are encrypted).
public struct SkippedMessageKey: Sendable {
    public let headerKey: SecureBytes
    public let counter: UInt32
    public let messageKey: SecureBytes

    public init(headerKey: SecureBytes, counter: UInt32, messageKey: SecureBytes) {
        self.headerKey = headerKey
        self.counter = counter
        self.messageKey = messageKey
    }
}

/// Where one session's skipped message keys live. The store module implements
/// it over the encrypted database; `InMemorySkippedMessageKeyStore` serves
/// tests and short-lived sessions.
///
/// Contract:
/// - `insert` adds keys in the order given, then evicts oldest-first until no
///   chain holds more than `RatchetLimits.maxSkippedKeysPerChain`, the session
///   holds at most `maxSkippedKeysTotal`, and at most `maxSkippedChains`
///   distinct header keys remain (dropping whole oldest chains).
/// - `messageKey` only looks; the session calls `remove` once the message
///   authenticated, so a forged message never costs a genuine key.
/// - Header keys compare by value, in constant time.
public protocol SkippedMessageKeyStore: AnyObject {
    /// The distinct header keys that have stored message keys, newest chain first.
    func headerKeys() throws -> [SecureBytes]
    func messageKey(headerKey: SecureBytes, counter: UInt32) throws -> SecureBytes?
    func remove(headerKey: SecureBytes, counter: UInt32) throws
    func insert(_ keys: [SkippedMessageKey]) throws
    /// How many message keys are stored.
    func count() throws -> Int
}
