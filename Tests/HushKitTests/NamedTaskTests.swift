import Foundation
@testable import HushKit
import HushTesting
import Testing

/// `NamedTask.namesStillRunning`, behind `HushAccount.stopLiveAndWait(atMost:)`:
/// a stop that waits for the live connection's parts, but not for ever, and
/// names the part that did not stop.
@Suite struct NamedTaskTests {
    @Test func aPartThatIgnoresCancellationIsNamedOnceTheLimitPasses() async {
        let release = Gate()
        // A watchdog instead of a hang: a wait with no limit would end only when it
        // lets the stuck part go, and then find nothing still running.
        let watchdog = Task.detached {
            try? await Task.sleep(for: .seconds(60))
            release.open()
        }
        defer { watchdog.cancel() }
        let parts = [NamedTask("the quick part") { try? await Task.sleep(for: .seconds(600)) },
                     NamedTask("the stuck part") { await release.wait() }]
        for part in parts { part.task.cancel() }
        let running = await NamedTask.namesStillRunning(parts, after: .milliseconds(300))
        #expect(running == ["the stuck part"], "it gave up at its limit and named the part")
        release.open()
        await parts[1].task.value
    }

    @Test func partsThatStopAreWaitedForAndNoneIsNamed() async {
        let parts = (0..<3).map { index in
            NamedTask("part \(index)") {
                // Stops when cancelled, after finishing what it was doing (a write, say).
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        for part in parts { part.task.cancel() }
        #expect(await NamedTask.namesStillRunning(parts, after: .seconds(120)).isEmpty)
        #expect(await NamedTask.namesStillRunning([], after: .seconds(120)).isEmpty)
    }
}
