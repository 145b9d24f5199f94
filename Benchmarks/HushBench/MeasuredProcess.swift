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

        // The child opens (and owns) its own stdout and stderr files: no descriptor of ours is handed over.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }

        let start = ContinuousClock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError("could not start \(executable): \(String(cString: strerror(spawned)))") }
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
