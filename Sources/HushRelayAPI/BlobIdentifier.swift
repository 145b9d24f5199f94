/// The form of a blob id the relay issues: 64 lower-case hex digits (32
/// random bytes; the id is the capability to read the blob). The relay
/// refuses any other in a path (400); a client refuses a pointer naming one
/// (PROTOCOL §10.3), which no relay could have issued and which must never
/// become part of a request path.
public enum BlobIdentifier {
    public static let length = 64

    public static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == length && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
