/// Milliseconds since 1970-01-01 UTC: every time the store keeps.
public typealias Milliseconds = Int64
