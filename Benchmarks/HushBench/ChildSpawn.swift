import Foundation
import Glibc

/// Starts a program with posix_spawn, its stdout and stderr into files of
/// its own (opened by the child: no descriptor of ours is handed over) and,
/// when asked, its stdin from /dev/null. The one spawn `Spawned`, `TimedRun`
/// and `MeasuredProcess` share; each waits for the pid its own way.
enum ChildSpawn {
    static func start(_ executable: String, _ arguments: [String], environment: [String: String],
                      outputPath: String, errorPath: String, inputFromNull: Bool = true) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if inputFromNull { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError("could not start \(executable): \(String(cString: strerror(spawned)))") }
        return pid
    }
}
