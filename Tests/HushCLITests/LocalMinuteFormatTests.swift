import Foundation
import Testing
@testable import hush

/// The times `hush chats`, `hush history` and `hush search` print, written
/// without ICU: the very text Foundation's formatter writes, for every input.
@Suite struct LocalMinuteFormatTests {
    @Test func everyTimeReadsAsTheFormatterWritesIt() {
        var samples: [Int64] = [0, 1, 999, 1_000, 59_999, 60_000, -1, -500, -999, -1_000, -1_001, -60_000, -60_001,
                                1_700_000_000_000, 4_102_444_799_999, 253_402_300_799_999]
        // 1960 to 2045 in steps of a little over seven hours, so every minute
        // of the hour and hour of the day comes round, with odd milliseconds.
        var at: Int64 = -315_619_200_000
        while at < 2_366_841_600_000 {
            samples.append(at)
            at += 26_017_123
        }
        var mismatches: [String] = []
        for milliseconds in samples {
            let written = Presentation.time(milliseconds), expected = Presentation.formatterTime(milliseconds)
            if written != expected { mismatches.append("\(milliseconds): \(written) ≠ \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(samples.count): \(mismatches.prefix(5))")
    }

    @Test func yearsOutsideFourDigitsAreTheFormattersOwn() {
        for milliseconds: Int64 in [253_402_300_800_000, 9_000_000_000_000_000, -62_135_596_800_001, -9_000_000_000_000_000] {
            #expect(Presentation.time(milliseconds) == Presentation.formatterTime(milliseconds))
        }
        #expect(Presentation.time(nil) == "—")
    }
}
