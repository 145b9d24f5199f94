import ArgumentParser
import Foundation
import HushVectors

/// `hush vectors [--slow] [PATH ...]`: runs Hush's own vectors, or the given
/// files and directories (Hush format or Project Wycheproof, told apart by content).
struct VectorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vectors",
        abstract: "Check the cryptography against published test vectors.",
        discussion: """
        With no path, runs every *.json under the package's Vectors/ directory. Paths may be \
        vector files (Hush's own format or Project Wycheproof JSON) or directories of them. \
        Exit status: 0 all passed, 1 a case failed, 2 a file could not be read or understood.
        """
    )

    @Flag(help: "Also run the slow cases (RFC 7748's one million iterations). HUSH_SLOW_VECTORS=1 does the same.")
    var slow = false

    @Argument(help: "Vector files or directories (default: the package's Vectors/).")
    var paths: [String] = []

    /// How many failures to print in detail per file.
    static let detailedFailures = 5

    func run() throws {
        let includeSlow = slow || ProcessInfo.processInfo.environment["HUSH_SLOW_VECTORS"] == "1"
        let runner = VectorRunner(options: .init(includeSlow: includeSlow))
        let files: [String]
        do {
            files = try VectorFiles.expand(paths.isEmpty ? [VectorFiles.locateVectorsDirectory()] : paths)
        } catch {
            printError("\(error)")
            throw ExitCode(2)
        }

        var passed = 0, failed = 0, acceptable = 0, skipped = 0, unusable = 0
        for file in files {
            let result: VectorFileResult
            do {
                result = try runner.run(fileAt: file)
            } catch {
                printError("error: \(error)")
                unusable += 1
                continue
            }
            print(Self.summary(result))
            for failure in result.failures.prefix(Self.detailedFailures) {
                print("  FAILED \(failure)")
            }
            if result.failures.count > Self.detailedFailures {
                print("  … and \(result.failures.count - Self.detailedFailures) more failures")
            }
            passed += result.passed
            failed += result.failed
            acceptable += result.acceptable
            skipped += result.skipped
        }
        if acceptable > 0 {
            print("\(acceptable) acceptable (Wycheproof cases where either outcome is allowed; not counted as passed)")
        }
        print("\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : ""))
        if unusable > 0 { throw ExitCode(2) }
        if failed > 0 { throw ExitCode(1) }
    }

    static func summary(_ result: VectorFileResult) -> String {
        var line = "\(result.name): \(result.passed) passed, \(result.failed) failed"
        if result.acceptable > 0 { line += ", \(result.acceptable) acceptable" }
        if result.skipped > 0 { line += ", \(result.skipped) skipped" }
        return line
    }

    private func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
