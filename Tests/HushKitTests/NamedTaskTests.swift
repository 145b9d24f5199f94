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
        let parts = [NamedTask("the quick part") { try? await Task.sleep(for: .seconds(600)) },
                     NamedTask("the stuck part") { await release.wait() }]
        for part in parts { part.task.cancel() }
        let started = ContinuousClock.now
        let running = await NamedTask.namesStillRunning(parts, after: .milliseconds(300))
        #expect(running == ["the stuck part"])
        #expect(ContinuousClock.now - started < .seconds(60), "it gave up at its limit")
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
        for part in parts { #expect(part.task.isCancelled) }
        #expect(await NamedTask.namesStillRunning([], after: .seconds(120)).isEmpty)
    }
}
