/// `PUT /v1/directory/{name}`: an account's device list, sealed (docs/PROTOCOL.md
/// §20.9), with the list's counter and the account's signature under the
/// blinded name. The relay checks the signature and keeps counters in order;
/// it cannot open the record.
public struct DirectoryWriteRequest: Codable, Sendable, Hashable {
    public var record: Base64Bytes
    /// The list's counter: 1 … 2⁶³ − 1 (the relay refuses others).
    public var counter: UInt64
    /// Ed25519 under the name, over `DeviceDirectory.putMessage`.
    public var signature: Base64Bytes

    public init(record: [UInt8], counter: UInt64, signature: [UInt8]) {
        self.record = Base64Bytes(record)
        self.counter = counter
        self.signature = Base64Bytes(signature)
    }
}

/// `GET /v1/directory/{name}`: the record held and its counter.
public struct DirectoryDTO: Codable, Sendable, Hashable {
    public var record: Base64Bytes
    public var counter: UInt64

    public init(record: [UInt8], counter: UInt64) {
        self.record = Base64Bytes(record)
        self.counter = counter
    }
}

/// The answer to a write: whether it created, replaced or renewed the record.
public struct DirectoryWriteResponse: Codable, Sendable, Hashable {
    /// `created`, `replaced` or `renewed`.
    public var result: String
    public var counter: UInt64

    public init(result: String, counter: UInt64) {
        self.result = result
        self.counter = counter
    }
}
