#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A local file problem while sealing, storing or exporting an attachment.
public struct AttachmentFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    init(exactly description: String) { self.description = description }

    init(_ what: String, path: String, errno code: Int32? = nil) {
        description = code.map { "\(what) \(path): \(String(cString: strerror($0)))" } ?? "\(what) \(path)"
    }
}

