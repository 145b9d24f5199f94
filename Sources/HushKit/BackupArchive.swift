import Foundation
@_spi(Vectors) import HushCrypto
import HushProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The backup archive's format (docs/PROTOCOL.md §19): a 138-byte header
/// authenticated by HMAC-SHA256, then a secretstream of typed records, the
/// last one an end record tagged final. Version 1 lays each record out as
/// `length (u32 BE) || sealed chunk`; version 2 (what writers write) as
/// `length || clear length (u32 BE) || sealed chunk || clear bytes`, the
/// clear bytes authenticated as the chunk's associated data: an attachment
/// blob, already ciphertext, is carried so instead of being encrypted again.
enum BackupArchive {
    static let magic = Array("HUSHBKUP".utf8)
    /// The version writers write.
    static let version: UInt16 = 2
    static let readableVersions: ClosedRange<UInt16> = 1...2
    static let saltLength = 32
    static let headerLength = 8 + 2 + 32 + 8 + saltLength + SecretStream.headerLength + HMACSHA256.outputLength
    /// The largest record a writer makes is a file chunk; anything much larger is damage.
    static let fileChunkLength = 64 << 10
    static let maximumSealedLength = 1 << 20
    /// The most clear bytes one record carries (version 2).
    static let maximumClearLength = 1 << 20
    static let streamInfo = Array("hush/v1/backup-stream".utf8) + [0]
    static let headerMACInfo = Array("hush/v1/backup-header".utf8) + [0]

    enum RecordType: UInt8 {
        case identity = 1
        case database = 2
        case table = 3
        case row = 4
        case file = 5
        case fileData = 6
        /// Version 2: the next bytes of the current file, carried in the clear
        /// beside an empty sealed record that authenticates them.
        case clearFileData = 7
        case end = 0x7F
    }

    /// Bytes in front of each sealed chunk: its length, and from version 2 the clear bytes' length.
    static func frameLength(version: UInt16) -> Int { version == 1 ? 4 : 8 }

    /// Whether a version-2 writer carries this file's bytes in the clear: an
    /// attachment blob (`<id>.blob` at the top of the attachments folder) is
    /// ciphertext under its own key, held only in the sealed `attachments`
    /// rows, so sealing it again hides nothing more than its bytes, which
    /// hide its contents already. Any other file is sealed, as in version 1.
    static func carriesInTheClear(_ relativePath: String) -> Bool {
        guard relativePath.hasSuffix(".blob") else { return false }
        let id = relativePath.utf8.dropLast(5)
        return !id.isEmpty && id.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The two keys of one archive, from the recovery key and the header's salt.
    struct Keys {
        let stream: SecureBytes
        let headerMAC: SecureBytes

        init(recoveryKey: RecoveryKey, salt: [UInt8]) {
            // Lengths are fixed by construction, so HKDF cannot fail here.
            stream = try! HKDF.deriveKey(inputKeyMaterial: recoveryKey.bytes, salt: salt, info: BackupArchive.streamInfo,
                                         length: SecretStream.keyLength)
            headerMAC = try! HKDF.deriveKey(inputKeyMaterial: recoveryKey.bytes, salt: salt, info: BackupArchive.headerMACInfo,
                                            length: HMACSHA256.outputLength)
        }
    }

    /// The header's fields; `encoded(mac:)` lays them out.
    struct Header {
        let version: UInt16
        let identityKey: [UInt8]
        /// Milliseconds since 1970 when the archive was made.
        let createdAt: UInt64
        let salt: [UInt8]
        let streamHeader: [UInt8]

        /// Everything the MAC covers: the header without its last 32 bytes.
        var authenticated: [UInt8] {
            var bytes = BackupArchive.magic
            bytes += [UInt8(version >> 8), UInt8(version & 0xff)]
            bytes += identityKey
            bytes += BackupArchive.bigEndian(createdAt)
            bytes += salt
            bytes += streamHeader
            return bytes
        }

        func encoded(keys: Keys) -> [UInt8] {
            let body = authenticated
            return body + HMACSHA256.authenticationCode(for: body, key: keys.headerMAC)
        }

        /// Parses the fields; the MAC is checked separately, once the keys are known.
        static func parse(_ bytes: [UInt8]) throws(HushError) -> (header: Header, mac: [UInt8]) {
            guard bytes.count == BackupArchive.headerLength, Array(bytes[0..<8]) == BackupArchive.magic else {
                throw HushError(.damagedFile, reason: "this is not a Hush backup archive (its first bytes are not a backup header)",
                                suggestion: "give the path of a file `hush backup create` made")
            }
            let version = UInt16(bytes[8]) << 8 | UInt16(bytes[9])
            guard BackupArchive.readableVersions.contains(version) else {
                throw HushError(.damagedFile, reason: "this backup archive has format version \(version); this hush reads versions "
                                    + "\(BackupArchive.readableVersions.lowerBound) to \(BackupArchive.readableVersions.upperBound)",
                                suggestion: "restore it with a newer hush")
            }
            var offset = 10
            func take(_ count: Int) -> [UInt8] { defer { offset += count }; return Array(bytes[offset..<offset + count]) }
            let identityKey = take(32)
            let createdAt = take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let salt = take(BackupArchive.saltLength)
            let streamHeader = take(SecretStream.headerLength)
            let mac = take(HMACSHA256.outputLength)
            return (Header(version: version, identityKey: identityKey, createdAt: createdAt, salt: salt, streamHeader: streamHeader), mac)
        }
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) } }
    static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32($0))) } }

    static func damaged(_ what: String) -> HushError {
        HushError(.damagedFile, reason: "the backup archive is damaged: \(what)",
                  suggestion: "nothing was restored; use another copy of the archive, or make a new one")
    }
}

/// Builds the bodies of records (§19.3): big-endian integers, strings and
/// byte strings with a length in front.
struct BackupRecordBuilder {
    private(set) var bytes: [UInt8] = []

    mutating func u16(_ value: Int) { bytes += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
    mutating func u32(_ value: Int) { bytes += BackupArchive.bigEndian(UInt32(value)) }
    mutating func u64(_ value: UInt64) { bytes += BackupArchive.bigEndian(value) }
    mutating func raw<C: Collection>(_ value: C) where C.Element == UInt8 { bytes += value }
    mutating func string(_ value: String) { let utf8 = Array(value.utf8); u16(utf8.count); raw(utf8) }
}

/// Reads a record's body; every read past the end is damage.
struct BackupRecordParser {
    /// The body is `bytes[offset..<end]`: a reader's buffer, reused for every record.
    private let bytes: [UInt8]
    private let end: Int
    private(set) var offset: Int

    init(_ bytes: [UInt8]) { self.init(bytes, from: 0, to: bytes.count) }

    init(_ bytes: [UInt8], from start: Int, to end: Int) {
        precondition(0 <= start && start <= end && end <= bytes.count)
        self.bytes = bytes
        offset = start
        self.end = end
    }

    var atEnd: Bool { offset == end }

    /// What has not been read yet.
    var rest: ArraySlice<UInt8> { bytes[offset..<end] }

    mutating func take(_ count: Int) throws(HushError) -> ArraySlice<UInt8> {
        guard count >= 0, end - offset >= count else { throw BackupArchive.damaged("a record is shorter than its contents say") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u8() throws(HushError) -> UInt8 { try take(1).first! }
    mutating func u16() throws(HushError) -> Int { try take(2).reduce(0) { $0 << 8 | Int($1) } }
    mutating func u32() throws(HushError) -> Int { try take(4).reduce(0) { $0 << 8 | Int($1) } }
    mutating func u64() throws(HushError) -> UInt64 { try take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    mutating func string() throws(HushError) -> String {
        let count = try u16()
        guard let value = String(validating: try take(count), as: UTF8.self) else { throw BackupArchive.damaged("a name is not UTF-8") }
        return value
    }

    /// Hands the unread bytes to `body` in place (valid only inside it),
    /// which returns how many of them it read.
    mutating func readInPlace(_ body: (UnsafeRawBufferPointer) throws -> Int) throws {
        let bytes = bytes, start = offset, end = end
        let count = try bytes.withUnsafeBytes { raw in try body(UnsafeRawBufferPointer(rebasing: raw[start..<end])) }
        precondition(0 <= count && count <= end - start)
        offset += count
    }

    func finish() throws(HushError) {
        guard atEnd else { throw BackupArchive.damaged("a record has bytes after its contents") }
    }
}

/// Writes an archive to an open file: the header, then sealed records.
///
/// Records are sealed and written on a thread of their own (`ArchiveSealer`)
/// while the caller reads the next rows and files: `append` copies each
/// record into a batch, handed over through a bounded queue (at most
/// `waitingBatches` of about `batchLength` bytes), so a backup takes the
/// longer of reading and sealing instead of their sum, in flat memory.
/// `finish()` writes the end record and returns once everything is written;
/// a writer dropped without it stops its thread and leaves an archive with
/// no end record, which every reader refuses.
final class BackupWriter {
    private(set) var records: UInt64 = 0
    /// What the archive holds once finished: every length is known before sealing.
    private(set) var bytesWritten: UInt64 = 0
    /// The format version written (2, or 1 for the vectors of version 1).
    let version: UInt16
    private let sealer: ArchiveSealer
    private var batch = ArchiveSealer.Batch()
    private var ended = false
    static let batchLength = 256 << 10
    static let waitingBatches = 16

    init(file: FileHandle, identityKey: [UInt8], recoveryKey: RecoveryKey, createdAt: UInt64,
         random: any RandomSource = SystemRandom(), version: UInt16 = BackupArchive.version) throws {
        precondition(BackupArchive.readableVersions.contains(version))
        let salt = random.bytes(BackupArchive.saltLength)
        let keys = BackupArchive.Keys(recoveryKey: recoveryKey, salt: salt)
        let pusher = try SecretStream.Pusher(key: keys.stream)
        self.version = version
        let header = BackupArchive.Header(version: version, identityKey: identityKey, createdAt: createdAt, salt: salt, streamHeader: pusher.header)
        let encoded = header.encoded(keys: keys)
        bytesWritten = UInt64(encoded.count)
        sealer = ArchiveSealer(file: file, pusher: pusher, header: encoded, version: version, waitingBatches: Self.waitingBatches)
    }

    /// A writer with a fixed salt and stream header, and a given format
    /// version (1 or 2), for test vectors and tests only.
    init(file: FileHandle, identityKey: [UInt8], recoveryKey: RecoveryKey, createdAt: UInt64,
         fixedSalt salt: [UInt8], fixedStreamHeader streamHeader: [UInt8], version: UInt16 = BackupArchive.version) throws {
        precondition(BackupArchive.readableVersions.contains(version))
        let keys = BackupArchive.Keys(recoveryKey: recoveryKey, salt: salt)
        let pusher = try SecretStream.Pusher(key: keys.stream, fixedHeader: streamHeader)
        self.version = version
        let header = BackupArchive.Header(version: version, identityKey: identityKey, createdAt: createdAt, salt: salt, streamHeader: streamHeader)
        let encoded = header.encoded(keys: keys)
        bytesWritten = UInt64(encoded.count)
        sealer = ArchiveSealer(file: file, pusher: pusher, header: encoded, version: version, waitingBatches: Self.waitingBatches)
    }

    deinit { abandon() }

    /// Stops the sealing thread without an end record; returns once it has
    /// stopped writing (call it before the file closes). Nothing after `finish`.
    func abandon() {
        guard !ended else { return }
        ended = true
        ConstantTime.wipe(&batch.bytes)
        try? sealer.stop(.abandon)
    }

    /// Queues one record, `type || body`, to be sealed and written.
    ///
    /// - Throws: the sealing thread's failure (a write that failed), at the first append after it.
    func append<Body: Collection>(_ type: BackupArchive.RecordType, _ body: Body) throws where Body.Element == UInt8 {
        precondition(type != .end && type != .clearFileData && !ended)
        batch.bytes.append(type.rawValue)
        batch.bytes.append(contentsOf: body)
        let length = batch.bytes.count - (batch.ends.last ?? 0)
        batch.ends.append(batch.bytes.count)
        batch.clear.append(0)
        records += 1
        bytesWritten += UInt64(BackupArchive.frameLength(version: version) + length + SecretStream.overhead)
        if batch.bytes.count >= Self.batchLength { try handOver() }
    }

    /// Queues the next bytes of the current file: from version 2, carried in
    /// the clear (authenticated, not encrypted) when `inTheClear`; sealed otherwise.
    func appendFileData<Bytes: Collection>(_ bytes: Bytes, inTheClear: Bool) throws where Bytes.Element == UInt8 {
        guard inTheClear, version >= 2 else { return try append(.fileData, bytes) }
        precondition(!ended && !bytes.isEmpty && bytes.count <= BackupArchive.maximumClearLength)
        batch.bytes.append(BackupArchive.RecordType.clearFileData.rawValue)
        batch.bytes.append(contentsOf: bytes)
        batch.ends.append(batch.bytes.count)
        batch.clear.append(bytes.count)
        records += 1
        bytesWritten += UInt64(BackupArchive.frameLength(version: version) + 1 + SecretStream.overhead + bytes.count)
        if batch.bytes.count >= Self.batchLength { try handOver() }
    }

    private func handOver() throws {
        guard !batch.ends.isEmpty else { return }
        let full = batch
        batch = ArchiveSealer.Batch()
        try sealer.put(full)
    }

    /// The end record (tagged final): the number of records before it; returns
    /// once everything is written to the file (not synced: the caller syncs).
    func finish() throws {
        precondition(!ended)
        try handOver()
        ended = true
        bytesWritten += UInt64(BackupArchive.frameLength(version: version) + 1 + 8 + SecretStream.overhead)
        try sealer.stop(.finish(records: records))
    }
}

/// Reads an archive record by record, checking each as it comes: the header's
/// MAC first, then every chunk's authentication, and at the end that the end
/// record came, counted every record, and nothing follows it.
///
/// Each record is opened from the read buffer straight into one plaintext
/// buffer, reused for every record (and wiped at the end): a record's body is
/// valid until the next call to `next()`. (Every record was copied three
/// times before, into fresh arrays: for a GiB of files, GiBs of copies.)
final class BackupReader {
    let header: BackupArchive.Header
    private let file: FileHandle
    /// The file read in blocks of about a MiB: two reads per record (its length,
    /// then its bytes) would otherwise be two system calls per row.
    private var source: BlockReader
    private let puller: SecretStream.Puller
    private var plaintext: [UInt8] = []
    private(set) var records: UInt64 = 0
    private var ended = false

    /// Opens `path` and checks its header with `recoveryKey`.
    ///
    /// - Throws: `HushError` of kind `notFound` (no such file), `damagedFile`
    ///   (not an archive, or a damaged header) or `invalidInput` (the key does not
    ///   open this archive: another account's, or a wrong one; or the path names a
    ///   named pipe, device or directory, refused unread).
    init(path: String, recoveryKey: RecoveryKey) throws(HushError) {
        let (file, source, header, mac) = try Self.openHeader(path)
        self.file = file
        self.source = source
        let keys = BackupArchive.Keys(recoveryKey: recoveryKey, salt: header.salt)
        guard HMACSHA256.isValid(tag: mac, for: header.authenticated, key: keys.headerMAC) else {
            let account = (try? IdentityKey(rawRepresentation: header.identityKey)).map { HushAddress(identityKey: $0).description } ?? "an unknown account"
            throw HushError(.invalidInput, reason: "the recovery key does not open this backup archive, made by \(account) (or its header was changed)",
                            suggestion: "give the recovery key of that account, as written down at `hush init` or shown by `hush backup key`")
        }
        self.header = header
        do { puller = try SecretStream.Puller(key: keys.stream, header: header.streamHeader) } catch {
            throw BackupArchive.damaged("its stream header is invalid")
        }
    }

    /// Checks that `path` holds a Hush archive of a format this hush reads
    /// (its header's form and version), with no key: what a command checks
    /// before it asks for the recovery key.
    static func checkHeader(at path: String) throws(HushError) {
        _ = try openHeader(path)
    }

    /// Opens `path` and reads its header, unchecked by any key.
    private static func openHeader(_ path: String) throws(HushError)
        -> (file: FileHandle, source: BlockReader, header: BackupArchive.Header, mac: [UInt8]) {
        // A named pipe or device is refused before it is read (opening a
        // FIFO would block until something wrote to it).
        let descriptor: Int32
        do { descriptor = try RegularFile.openForReading(path) } catch {
            if case .notRegularFile = error.reason {
                throw HushError(.invalidInput, reason: "cannot read the backup archive: \(error.problem)", suggestion: error.suggestion)
            }
            throw HushError(.notFound, reason: "there is no readable backup archive at \(path)" + (error.isMissing ? "" : " (\(error.problem))"),
                            suggestion: "check the path")
        }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        // A file shorter than a header that is no archive at all (a text file given by mistake) is
        // said to be none, not "cut short".
        let start = Array((try? file.read(upToCount: BackupArchive.magic.count)) ?? Data())
        guard start == Array(BackupArchive.magic.prefix(start.count)), !start.isEmpty else {
            throw HushError(.damagedFile, reason: "this is not a Hush backup archive (its first bytes are not a backup header)",
                            suggestion: "give the path of a file `hush backup create` made")
        }
        do { try file.seek(toOffset: 0) } catch {
            throw HushError(.storage, reason: "could not read the backup archive at \(path) (\(error.localizedDescription))")
        }
        var source = BlockReader(file: file)
        guard let range = try source.next(BackupArchive.headerLength) else {
            throw BackupArchive.damaged("it ends in the middle of the header (cut short?)")
        }
        let (header, mac) = try BackupArchive.Header.parse(Array(source.bytes(range)))
        return (file, source, header, mac)
    }

    deinit {
        ConstantTime.wipe(&plaintext)
        try? file.close()
    }

    /// The next record, or nil after the end record (checked: the count it
    /// carries matches, and the file ends there). The body of a record
    /// carrying clear bytes (`clearFileData`) is those bytes, authenticated.
    func next() throws(HushError) -> (type: BackupArchive.RecordType, body: BackupRecordParser)? {
        if ended { return nil }
        let frame = BackupArchive.frameLength(version: header.version)
        guard let frameRange = try source.next(frame) else {
            throw BackupArchive.damaged("it ends before its end record (cut short after \(records) records)")
        }
        let frameBytes = source.bytes(frameRange)
        let length = frameBytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let clear = frameBytes.dropFirst(4).reduce(0) { $0 << 8 | Int($1) }
        guard length >= SecretStream.overhead + 1, length <= BackupArchive.maximumSealedLength,
              clear <= BackupArchive.maximumClearLength else {
            throw BackupArchive.damaged("record \(records + 1) has an impossible length")
        }
        // The chunk and its clear bytes are read as one piece: both stay in the read buffer until the next call.
        guard let recordRange = try source.next(length + clear) else {
            throw BackupArchive.damaged("it ends in the middle of record \(records + 1) (cut short?)")
        }
        let sealedRange = recordRange.lowerBound..<recordRange.lowerBound + length
        let clearRange = sealedRange.upperBound..<recordRange.upperBound
        let count = length - SecretStream.overhead
        if plaintext.count < count {
            ConstantTime.wipe(&plaintext)
            plaintext = [UInt8](repeating: 0, count: max(count, BackupArchive.fileChunkLength + 1))
        }
        let puller = puller
        let opened = source.withBytes(recordRange) { bytes in
            plaintext.withUnsafeMutableBytes { out in
                try? puller.pull(UnsafeRawBufferPointer(rebasing: bytes[..<length]),
                                 associatedData: UnsafeRawBufferPointer(rebasing: bytes[length...]), into: out)
            }
        }
        guard let opened else {
            throw BackupArchive.damaged("record \(records + 1) fails its authentication (changed, moved or from another archive)")
        }
        guard opened.count >= 1, let type = BackupArchive.RecordType(rawValue: plaintext[0]),
              type != .clearFileData || header.version >= 2 else {
            throw BackupArchive.damaged("record \(records + 1) has an unknown type")
        }
        // Clear bytes come with clear file data alone, which has no sealed body.
        guard (type == .clearFileData) == (clear > 0), type != .clearFileData || opened.count == 1 else {
            throw BackupArchive.damaged("record \(records + 1) carries clear bytes where it may not")
        }
        var body = type == .clearFileData ? BackupRecordParser(source.storage, from: clearRange.lowerBound, to: clearRange.upperBound)
            : BackupRecordParser(plaintext, from: 1, to: opened.count)
        guard (type == .end) == (opened.tag == .final) else { throw BackupArchive.damaged("record \(records + 1) is out of place") }
        if type == .end {
            guard try body.u64() == records else { throw BackupArchive.damaged("its end record counts a different number of records") }
            try body.finish()
            guard try source.next(1) == nil else { throw BackupArchive.damaged("it has bytes after its end record") }
            ended = true
            return nil
        }
        records += 1
        return (type, body)
    }
}

/// A file read in blocks into one buffer, handed out as ranges of it: the
/// bytes of a piece stay where they were read, unless a piece runs past the
/// end of the block, when what is left moves to the front before the next read.
struct BlockReader {
    let file: FileHandle
    /// The file's bytes, read past the page cache.
    private let reader: DirectFileReader
    private var buffer: [UInt8]
    /// The bytes read and not handed out yet: `buffer[start..<end]`.
    private var start = 0
    private var end = 0
    /// Small enough to add little to the memory of the restore's one key
    /// derivation, which comes after the first records; a larger piece (a
    /// record of more than a block) grows the buffer.
    static let blockLength = 256 << 10

    init(file: FileHandle) {
        self.file = file
        reader = DirectFileReader(descriptor: file.fileDescriptor)
        buffer = [UInt8](repeating: 0, count: Self.blockLength)
    }

    /// Where the next `count` bytes are in the buffer (read with `bytes(_:)`
    /// or `withBytes(_:_:)` before the next call), or nil when the file ends first.
    mutating func next(_ count: Int) throws(HushError) -> Range<Int>? {
        precondition(count >= 0)
        if end - start < count {
            if count > buffer.count { buffer += [UInt8](repeating: 0, count: count - buffer.count) }
            let left = end - start, from = start
            if left > 0, from > 0 {
                // Overlapping regions are allowed: it is a memmove.
                buffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + from, byteCount: left) }
            }
            start = 0
            end = left
            let reader = reader
            while end < count {
                let filled = end
                var failure: HushError?
                let got = buffer.withUnsafeMutableBytes { raw -> Int in
                    do throws(HushError) { return try reader.readBytes(into: raw.baseAddress! + filled, count: raw.count - filled) } catch {
                        failure = error
                        return 0
                    }
                }
                if let failure { throw failure }
                if got == 0 { break }
                end += got
            }
            guard end - start >= count else { return nil }
        }
        defer { start += count }
        return start..<start + count
    }

    func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> { buffer[range] }

    /// The whole buffer, for a parser over a range of it: let go of it before
    /// the next call (a reference kept would make that read copy the buffer).
    var storage: [UInt8] { buffer }

    func withBytes<Result>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
