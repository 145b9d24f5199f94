import Foundation
import HushMessenger
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file from its start past the page cache (O_DIRECT), in aligned
/// 1 MiB reads into one aligned buffer, handing out any number of bytes by
/// copying from it: how a restore and a verify read a backup archive.
///
/// A create writes its archive past the page cache (`ArchiveSealer`, for
/// the reason `DirectWriter` gives), so an archive is seldom in the cache
/// when it is read, and a buffered read of it would put every page there
/// first: 1 GiB read cold took 2.3 s of wall and 1.65 s of system time
/// through the cache, 0.8 s and 0.07 s with O_DIRECT (dd, same minute). The
/// extra copy out of the aligned buffer is a memory copy. (Reading ahead on
/// a thread of its own, 4 MiB waiting, was tried: no faster restore, and
/// 6 MiB more at its peak.) Where O_DIRECT is refused (tmpfs, some network
/// filesystems, systems without it), or a read comes back short before the
/// end, reads go through the page cache from then on.
final class DirectFileReader {
    private let descriptor: Int32
    private var direct: Bool
    private let buffer: UnsafeMutableRawBufferPointer
    /// The bytes read and not handed out yet: `buffer[start..<end]`.
    private var start = 0
    private var end = 0
    private var atEnd = false
    static var alignment: Int { DirectWriter.alignment }
    static let bufferLength = 1 << 20

    /// Reads the file open on `descriptor` (at its start), which the caller keeps open.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        let flags = fcntl(descriptor, F_GETFL)
        direct = DirectWriter.directFlag != 0 && flags >= 0 && fcntl(descriptor, F_SETFL, flags | DirectWriter.directFlag) == 0
        buffer = .allocate(byteCount: Self.bufferLength, alignment: Self.alignment)
    }

    deinit { buffer.deallocate() }

    /// Copies up to `count` bytes into `destination`; returns how many, 0 at the end of the file.
    func readBytes(into destination: UnsafeMutableRawPointer, count: Int) throws(HushError) -> Int {
        if start == end {
            guard !atEnd else { return 0 }
            try fill()
            if start == end { return 0 }
        }
        let taken = min(count, end - start)
        destination.copyMemory(from: buffer.baseAddress! + start, byteCount: taken)
        start += taken
        return taken
    }

    /// One read of a whole buffer's worth (aligned, at an aligned offset while direct).
    private func fill() throws(HushError) {
        start = 0
        end = 0
        while true {
            let got = read(descriptor, buffer.baseAddress!, buffer.count)
            if got < 0 {
                if errno == EINTR { continue }
                if errno == EINVAL && direct { try goThroughPageCache(); continue }
                throw HushError(.storage, reason: "could not read the backup archive (errno \(errno))")
            }
            if got == 0 { atEnd = true }
            // Short: the end of the file, or the offset is no longer aligned: buffered reads from here.
            if got > 0 && got < buffer.count && direct { try goThroughPageCache() }
            end = got
            return
        }
    }

    private func goThroughPageCache() throws(HushError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~DirectWriter.directFlag) == 0 else {
            throw HushError(.storage, reason: "could not read the backup archive (errno \(errno))")
        }
        direct = false
    }
}
