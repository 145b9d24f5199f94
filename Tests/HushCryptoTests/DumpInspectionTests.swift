import HushTesting
import Testing

/// `dumpShows` (HushTesting), which the leak checks of several targets use.
@Suite struct DumpInspectionTests {
    /// The check can fail: a plain array's dump does show its bytes.
    @Test func aPlainArrayDumpShowsItsBytes() {
        let bytes: [UInt8] = [9, 250, 3, 77, 171, 0, 12, 200, 5]
        var dumped = ""
        dump(bytes, to: &dumped)
        #expect(dumpShows(bytes, in: dumped))
        #expect(!dumpShows([1, 2, 3, 4, 5, 6, 7, 8], in: dumped))
    }
}
