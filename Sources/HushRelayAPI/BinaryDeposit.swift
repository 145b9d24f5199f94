/// The binary form of a deposit: `POST /v1/mailboxes/{identity}/messages`
/// with `Content-Type: application/octet-stream`, the raw envelope as the
/// body, and the other fields in headers. It carries the same information
/// as the JSON form without base64 (a third fewer bytes) or JSON parsing,
/// and is what `RelayClient` sends; the JSON form stays accepted.
public enum BinaryDeposit {
    public static let contentType = "application/octet-stream"
    /// The client's idempotency key, same rules as the JSON `requestID`.
    public static let requestIDHeader = "Hush-Request-ID"
    /// Optional: the delivery credential in standard base64 (44 characters).
    public static let credentialHeader = "Hush-Credential"
}
