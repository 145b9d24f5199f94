import Foundation
@testable import HushDaemon
import Testing

/// The daemon's messages written by hand: the same bytes as JSONEncoder's.
@Suite struct JSONTextTests {
    @Test func everyValueReadsAsJSONEncoderWritesIt() throws {
        var random = SystemRandomNumberGenerator()
        // Every byte below 0x80, the quote, backslash and slash among them, and some beyond ASCII.
        let alphabet = (0..<0x80).map { Character(Unicode.Scalar(UInt8($0))) } + ["é", "€", "👍🏽", "\u{2028}", "\r\n"]
        func text() -> String { String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        func value(depth: Int) -> JSONValue {
            switch Int.random(in: 0...(depth < 3 ? 7 : 4), using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .number(Double(Int64.random(in: -9_007_199_254_740_991...9_007_199_254_740_991, using: &random)))
            case 3, 4: return .string(text())
            case 5: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in value(depth: depth + 1) })
            default:
                // Keys that sort differently by bytes, by case and by number: "B" < "a", "a10" < "a9".
                let keys = ["a", "B", "b", "a10", "a9", "é", "Z1", "", "stream", "text", "jsonrpc"] + [text()]
                return .object(Dictionary((0..<Int.random(in: 0...5, using: &random)).map { _ in
                    (keys.randomElement(using: &random)!, value(depth: depth + 1))
                }, uniquingKeysWith: { first, _ in first }))
            }
        }
        var mismatches: [String] = []
        for _ in 0..<3_000 {
            let sample = value(depth: 0)
            if sample.description != sample.encodedDescription { mismatches.append("\(sample.description) ≠ \(sample.encodedDescription)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of 3,000: \(mismatches.prefix(3))")
    }

    @Test func aFractionIsJSONEncodersToWrite() {
        for number in [0.5, -1.25, 1e300, 9.007_199_254_740_992e15] {
            let value = JSONValue.object(["n": .number(number)])
            #expect(value.description == value.encodedDescription)
        }
    }
}
