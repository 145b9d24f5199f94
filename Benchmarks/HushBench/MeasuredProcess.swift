import Foundation
import Glibc

/// A program run to completion with what it cost, as the kernel counted it:
/// wait4's rusage gives the child's own CPU time and its peak resident set
/// (`ru_maxrss`), which polling /proc could miss at the very end.
/// Foundation's `Process` reaps its children itself, so this spawns with
/// posix_spawn and waits with wait4 for exactly that pid.
struct MeasuredProcess {
    let status: Int32
    let standardOutput: String
    let standardError: String
    let wallSeconds: Double
    let cpuSeconds: Double
    let peakResidentBytes: Int

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
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("wait4 failed: \(String(cString: strerror(errno)))") }
        }
        let wall = RelayBench.seconds(since: start)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let exited = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return MeasuredProcess(status: exited,
                               standardOutput: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
                               standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "",
                               wallSeconds: wall, cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
                               // Linux reports ru_maxrss in kilobytes.
                               peakResidentBytes: Int(usage.ru_maxrss) * 1024)
    }
}
