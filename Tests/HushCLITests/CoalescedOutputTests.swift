import Testing
@testable import hush

/// A command's output through the daemon: gathered into few notifications,
/// never reordered, nothing lost.
@Suite struct CoalescedOutputTests {
    @Test func linesWrittenWhileNothingIsSentGoOutTogetherInOrder() async {
        let output = CoalescedOutput()
        for index in 0..<4_000 { output.write(.stdout, "line \(index)\n") }
        output.write(.stderr, "warning\n")
        output.write(.stdout, "after\n")
        output.finish()
        var sent: [(CommandOutput.Stream, String)] = []
        await output.forward { stream, text in sent.append((stream, text)) }
        let expected = (0..<4_000).map { "line \($0)\n" }.joined()
        // About 64 KiB per notification: 4,000 lines of at most 10 bytes are a single one.
        #expect(sent.count == 3, "\(sent.count) notifications")
        #expect(sent.map(\.0) == [.stdout, .stderr, .stdout])
        #expect(sent.map(\.1) == [expected, "warning\n", "after\n"])
    }

    @Test func aLongOutputIsCutIntoChunksOfAboutSixtyFourKiB() async {
        let output = CoalescedOutput()
        let line = String(repeating: "x", count: 1_023) + "\n"
        for _ in 0..<200 { output.write(.stdout, line) }
        output.finish()
        var sent: [String] = []
        await output.forward { _, text in sent.append(text) }
        #expect(sent.joined() == String(repeating: line, count: 200))
        #expect(sent.count == 4, "\(sent.map(\.utf8.count))")
        #expect(sent.allSatisfy { $0.utf8.count <= CoalescedOutput.chunkBytes + line.utf8.count })
    }

    @Test func whatIsWrittenWhileForwardingArrivesToo() async {
        let output = CoalescedOutput()
        let forwarding = Task {
            var texts: [String] = []
            await output.forward { _, text in texts.append(text) }
            return texts.joined()
        }
        for index in 0..<500 {
            output.write(.stdout, "\(index)\n")
            if index % 50 == 0 { await Task.yield() }
        }
        output.finish()
        #expect(await forwarding.value == (0..<500).map { "\($0)\n" }.joined())
    }
}
