import Foundation
import Glibc
import Logging
import PostgresNIO

/// A throwaway PostgreSQL cluster for the tests: `make test` starts one and
/// passes its URL in `$HUSH_TEST_POSTGRES_URL`; without it, the first test
/// that asks starts one itself with `scripts/postgres-test-cluster` (which
/// installs Debian's postgresql when missing) and stops it when the test
/// process exits. Each test gets a database of its own.
///
/// When PostgreSQL cannot start, every PostgreSQL test fails with the
/// script's message: they never skip silently.
public enum PostgresTestCluster {
    /// The cluster's base URL (`postgres://USER@127.0.0.1:PORT/hush`), or why there is none.
    static let base: Result<String, ClusterError> = {
        if let url = ProcessInfo.processInfo.environment["HUSH_TEST_POSTGRES_URL"], !url.isEmpty { return .success(url) }
        return startOwnCluster()
    }()

    public struct ClusterError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A new, empty database on the cluster; its URL.
    public static func freshDatabase(_ label: String) async throws -> String {
        let base = try base.get()
        guard let components = URLComponents(string: base), let host = components.host, let port = components.port,
              let user = components.user else { throw ClusterError(description: "unusable test cluster URL \(base)") }
        let name = "t_" + label.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(30) + "_" + UUID().uuidString.prefix(8).lowercased()
        let logger = Logger(label: "test.postgres")
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: host, port: port, username: user, password: nil, database: String(components.path.dropFirst()), tls: .disable),
            id: 1, logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
        return "postgres://\(user)@\(host):\(port)/\(name)"
    }

    /// The package root, from this file's place in it.
    static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    private static func startOwnCluster() -> Result<String, ClusterError> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hush-pg-\(UUID().uuidString.prefix(8))").path
        // Output to files, not pipes: the server the script starts must not
        // hold a pipe this process waits to see closed. (system(3), not
        // Foundation's Process, whose exit monitoring was seen to hang here.)
        let outputFile = directory + ".out", errorFile = directory + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: outputFile)
            try? FileManager.default.removeItem(atPath: errorFile)
        }
        let script = packageRoot + "/scripts/postgres-test-cluster"
        let status = system("'\(script)' start '\(directory)' </dev/null >'\(outputFile)' 2>'\(errorFile)'")
        let read = { (path: String) in
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let url = read(outputFile), message = read(errorFile)
        guard status == 0, url.hasPrefix("postgres://") else {
            return .failure(ClusterError(description: "PostgreSQL could not start for the tests: \(message)"))
        }
        ownCluster = directory
        atexit {
            guard let directory = PostgresTestCluster.ownCluster else { return }
            _ = system("'\(PostgresTestCluster.packageRoot)/scripts/postgres-test-cluster' stop '\(directory)' >/dev/null 2>&1")
        }
        return .success(url)
    }

    /// The cluster this process started (stopped at exit).
    nonisolated(unsafe) static var ownCluster: String?

    /// Process ids of the cluster this process started: the postmaster (first
    /// line of postmaster.pid) and its children (backends, WAL writer, …), so
    /// the relay benchmark can add PostgreSQL's own CPU time to the relay's.
    /// Empty for a cluster given through `$HUSH_TEST_POSTGRES_URL`.
    public static func serverProcessIDs() -> [Int32] {
        guard let directory = ownCluster,
              let pidFile = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
              let postmaster = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else { return [] }
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry -> Int32? in
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After the command name: state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == postmaster ? pid : nil
        }
        return [postmaster] + children
    }
}
