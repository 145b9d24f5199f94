import Foundation
import Glibc

/// A program run to completion with what it cost: wait4's rusage gives the
/// child's own CPU time (Foundation's `Process` reaps its children itself,
/// so this spawns with posix_spawn and waits with wait4 for exactly that
/// pid). Its peak memory is NOT rusage's `ru_maxrss`: glibc's posix_spawn
/// runs the child on the parent's address space until exec (CLONE_VM), and
/// Linux folds that address space's high-water mark (this benchmark's own,
/// over 100 MiB) into the child's maxrss at exec. Instead the child's own
/// high-water mark (VmHWM in /proc) is read every 2 ms or so while it runs,
/// with its resident set (VmRSS), to show when the peak happens.
struct MeasuredProcess {
    let status: Int32
    let standardOutput: String
    let standardError: String
    let wallSeconds: Double
    let cpuSeconds: Double
    /// The highest VmHWM read: the child's peak, but for what it reached in its last 2 ms.
    let peakResidentBytes: Int
    /// VmRSS every 2 ms (or so) while it ran.
    let residentSamples: [Int]

    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> MeasuredProcess {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hush-measured-\(UUID().uuidString)").path
        let outputPath = scratch + ".out", errorPath = scratch + ".err"
        defer { try? FileManager.default.removeItem(atPath: outputPath); try? FileManager.default.removeItem(atPath: errorPath) }

        let start = ContinuousClock.now
        let pid = try ChildSpawn.start(executable, arguments, environment: environment, outputPath: outputPath, errorPath: errorPath,
                                       inputFromNull: false)
        var status: Int32 = 0
        var usage = rusage()
        var samples: [Int] = []
        var highWater = 0
        while true {
            let waited = wait4(pid, &status, WNOHANG, &usage)
            if waited == pid { break }
            guard waited == 0 || errno == EINTR else { throw BenchError("wait4 failed: \(String(cString: strerror(errno)))") }
            if waited == 0 {
                let resident = RelayBench.residentBytes(pid: pid)
                if resident > 0 { samples.append(resident) }
                highWater = max(highWater, RelayBench.residentBytes(pid: pid, field: "VmHWM:"))
                usleep(2_000)
            }
        }
        let wall = RelayBench.seconds(since: start)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let exited = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return MeasuredProcess(status: exited,
                               standardOutput: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
                               standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "",
                               wallSeconds: wall, cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
                               peakResidentBytes: highWater, residentSamples: samples)
    }
}
