import Foundation
import Testing

/// The modules an embedding app links (everything under HushKit) must build
/// on Darwin and Musl as well as Glibc. No SDK for those is at hand in CI, so
/// this reads their sources: the C library is imported through the
/// `#if canImport(Glibc) … Musl … Darwin` block, never reached as `Glibc.`,
/// and Linux-only calls and fields sit behind `#if os(Linux)` (or in the
/// `#else` of `#if canImport(Darwin)`).
@Suite struct PortableSourcesTests {
    static let coreModules = ["HushCrypto", "HushProtocol", "HushDatabase", "HushKeystore", "HushStore",
                              "HushMessenger", "HushRelayAPI", "HushRelayClient", "HushKit"]

    static let importBlock = """
        #if canImport(Glibc)
        import Glibc
        #elseif canImport(Musl)
        import Musl
        #elseif canImport(Darwin)
        import Darwin
        #endif
        """

    /// Names that exist in Glibc (or only on Linux) but not in Darwin's C library.
    static var linuxOnly: Regex<AnyRegexOutput> {
        try! Regex(
            #"\b(st_[amc]tim|fdatasync|sync_file_range|posix_fadvise|fallocate|MSG_NOSIGNAL|pipe2|accept4|epoll_\w+|inotify_\w+|eventfd|mallinfo|statfs|memfd_create|getrandom|renameat2|copy_file_range|O_PATH|AT_EMPTY_PATH|SOCK_CLOEXEC|SOCK_NONBLOCK|prctl)\b|"/proc/"#)
            // Simple boundaries: Unicode's would read `info.st_mtim` as one word.
            .wordBoundaryKind(.simple)
    }

    static var sources: [(path: String, text: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        var found: [(String, String)] = []
        for module in coreModules {
            let directory = root.appendingPathComponent(module)
            let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
            for file in files.sorted() where file.hasSuffix(".swift") {
                let path = directory.appendingPathComponent(file).path
                if let text = try? String(contentsOfFile: path, encoding: .utf8) { found.append(("\(module)/\(file)", text)) }
            }
        }
        return found
    }

    @Test func theCoreModulesAreFound() {
        #expect(Self.sources.count > 100)
        #expect(Self.sources.contains { $0.path == "HushKeystore/AtomicFile.swift" })
    }

    @Test func theCLibraryIsImportedForEveryPlatform() {
        for (path, text) in Self.sources {
            let imports = text.components(separatedBy: "\n").filter { $0 == "import Glibc" }.count
            let blocks = text.components(separatedBy: Self.importBlock).count - 1
            #expect(imports == blocks, "\(path): `import Glibc` outside the #if canImport(Glibc)/Musl/Darwin block")
        }
    }

    @Test func noCallIsQualifiedWithGlibc() {
        for (path, text) in Self.sources {
            for (number, line) in Self.codeLines(text) where line.contains("Glibc.") {
                Issue.record("\(path):\(number): `Glibc.` exists on Linux only: \(line)")
            }
        }
    }

    @Test func linuxOnlyCallsAreBehindAnOSCheck() {
        let linuxOnly = Self.linuxOnly
        for (path, text) in Self.sources {
            var branches: [(condition: String, isElse: Bool)] = []
            for (number, line) in Self.codeLines(text) {
                let directive = line.trimmingCharacters(in: .whitespaces)
                if directive.hasPrefix("#if ") { branches.append((directive, false)); continue }
                if directive.hasPrefix("#elseif "), !branches.isEmpty { branches[branches.count - 1] = (directive, false); continue }
                if directive == "#else", !branches.isEmpty { branches[branches.count - 1].isElse = true; continue }
                if directive == "#endif" { _ = branches.popLast(); continue }
                guard line.contains(linuxOnly) else { continue }
                let guarded = branches.contains { branch in
                    branch.isElse ? branch.condition.contains("canImport(Darwin)") : branch.condition.contains("os(Linux)")
                }
                #expect(guarded, "\(path):\(number): Linux only, not behind #if os(Linux): \(line)")
            }
        }
    }

    /// Numbered lines without `//` comments (doc comments name Linux calls freely).
    static func codeLines(_ text: String) -> [(Int, String)] {
        text.components(separatedBy: "\n").enumerated().compactMap { index, line in
            let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? line
            return code.trimmingCharacters(in: .whitespaces).isEmpty ? nil : (index + 1, code)
        }
    }
}
