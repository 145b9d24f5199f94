import Foundation

/// Looks for a known plaintext (a "canary" message the tester sent) in every
/// file under a directory, in each encoding a careless implementation might
/// have written it: UTF-8, UTF-16 LE and BE, lower- and upper-case hex, and
/// base64 (at all three byte alignments, so it is found inside a longer
/// base64 text too). Used by `hush audit relay` and `hush audit local`.
public enum CanaryScanner {
    public enum Encoding: String, CaseIterable, Sendable, Codable {
        case utf8 = "UTF-8"
        case utf16LE = "UTF-16LE"
        case utf16BE = "UTF-16BE"
        case hex = "hex"
        case base64 = "base64"
    }

    public struct Finding: Sendable, Equatable, Codable {
        public var encoding: Encoding
        /// Files (relative to the scanned directory) holding the canary in this encoding.
        public var files: [String]
        public var found: Bool { !files.isEmpty }
    }

    public struct Report: Sendable, Codable {
        public var directory: String
        public var filesScanned: Int
        public var bytesScanned: Int
        public var findings: [Finding]
        public var foundAnywhere: Bool { findings.contains { $0.found } }
    }

    /// Files larger than this are scanned in their first `maxFileBytes` only.
    public static let maxFileBytes = 512 * 1024 * 1024
    /// At most this many files are scanned.
    public static let maxFiles = 100_000

    /// The byte patterns for each encoding of `canary`.
    public static func patterns(for canary: String) -> [Encoding: [[UInt8]]] {
        let utf8 = Array(canary.utf8)
        var le: [UInt8] = [], be: [UInt8] = []
        for unit in canary.utf16 {
            le += [UInt8(unit & 0xff), UInt8(unit >> 8)]
            be += [UInt8(unit >> 8), UInt8(unit & 0xff)]
        }
        let lowerHex = Array(utf8.map { String(format: "%02x", $0) }.joined().utf8)
        let upperHex = Array(utf8.map { String(format: "%02X", $0) }.joined().utf8)
        return [.utf8: [utf8], .utf16LE: [le], .utf16BE: [be], .hex: [lowerHex, upperHex], .base64: base64Patterns(utf8)]
    }

    /// The canary inside any base64 text starts at byte offset 0, 1 or 2 of a
    /// 3-byte group; for each, the characters that depend only on canary bytes.
    static func base64Patterns(_ bytes: [UInt8]) -> [[UInt8]] {
        var patterns: [[UInt8]] = []
        for shift in 0..<3 {
            let padded = [UInt8](repeating: 0, count: shift) + bytes
            let encoded = Array(Data(padded).base64EncodedString().utf8)
            // Drop characters mixing in the padding bytes at the start, and the
            // last group, which mixes in whatever follows the canary.
            let skip = shift == 0 ? 0 : (shift == 1 ? 2 : 3)
            let fullGroups = padded.count / 3
            let end = fullGroups * 4
            guard end > skip + 4 else { continue }
            patterns.append(Array(encoded[skip..<end]))
        }
        return patterns
    }

    /// Scans every regular file under `directory`.
    public static func scan(directory: String, canary: String) throws -> Report {
        let patterns = patterns(for: canary)
        var hits: [Encoding: [String]] = [:]
        var files = 0, bytes = 0
        let root = URL(fileURLWithPath: directory)
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        for case let url as URL in enumerator {
            guard files < maxFiles else { break }
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            guard let handle = try? FileHandle(forReadingFrom: url) else { continue }
            let data = (try? handle.read(upToCount: maxFileBytes)) ?? Data()
            try? handle.close()
            files += 1
            bytes += data.count
            let relative = String(url.path.dropFirst(root.path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            for (encoding, candidates) in patterns where candidates.contains(where: { !$0.isEmpty && data.range(of: Data($0)) != nil }) {
                hits[encoding, default: []].append(relative)
            }
        }
        let findings = Encoding.allCases.map { Finding(encoding: $0, files: (hits[$0] ?? []).sorted()) }
        return Report(directory: directory, filesScanned: files, bytesScanned: bytes, findings: findings)
    }

    /// Human-readable lines: one per encoding, then a verdict.
    public static func render(_ report: Report, canaryLength: Int) -> String {
        var lines = ["Canary scan of \(report.directory): \(report.filesScanned) files, \(report.bytesScanned) bytes, canary of \(canaryLength) characters"]
        for finding in report.findings {
            lines.append("  \(finding.encoding.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) "
                         + (finding.found ? "FOUND in \(finding.files.joined(separator: ", "))" : "not found"))
        }
        lines.append(report.foundAnywhere ? "RESULT: the canary is stored in readable form" : "RESULT: the canary was not found in any encoding")
        return lines.joined(separator: "\n")
    }
}
