/// The number two people compare (read aloud, or one scans the other's
/// code) to know that no one sits between them. It is computed from both
/// identity keys and is the same on both sides.
public struct SafetyNumber: Sendable, Equatable {
    /// 60 digits.
    public let digits: String
    /// The digits in twelve groups of five, for reading aloud.
    public var groups: [String] {
        stride(from: 0, to: digits.count, by: 5).map { start in
            let from = digits.index(digits.startIndex, offsetBy: start)
            return String(digits[from..<digits.index(from, offsetBy: min(5, digits.count - start))])
        }
    }
    /// What a QR code shows, for the other side to scan
    /// (`HushAccount.compareSafetyNumber(with:code:)` takes its hex).
    public let scannableCode: [UInt8]
}
