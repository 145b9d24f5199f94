import Synchronization
import Testing
@testable import HushTerminal

@Suite struct ChatScreenTests {
    /// A paste (one read of many bytes) repaints the screen once, not once per byte.
    @Test func aBatchOfInputIsPaintedOnce() {
        let writes = Mutex(0)
        let screen = ChatScreen(prompt: "> ", interactive: true, output: { _ in writes.withLock { $0 += 1 } })
        screen.open()
        let afterOpen = writes.withLock { $0 }
        let events = screen.feed(Array(String(repeating: "pasted text ", count: 200).utf8))
        #expect(events.count == 2400 && events.allSatisfy { $0 == .edited })
        #expect(writes.withLock { $0 } == afterOpen + 1)
        #expect(screen.feed(Array("\r".utf8)) == [.submitted(String(repeating: "pasted text ", count: 200))])
        screen.close()
    }
}
