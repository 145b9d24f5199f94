import Foundation
@_spi(Vectors) import HushCrypto
import HushProtocol

/// The backup archive's format (docs/PROTOCOL.md §19): a 138-byte header
/// authenticated by HMAC-SHA256, then a secretstream of typed records, each
/// on disk as `length (u32 BE) || sealed chunk`, the last one an end record
/// tagged final.
enum BackupArchive {
    static let magic = Array("HUSHBKUP".utf8)
    static let version: UInt16 = 1
    static let saltLength = 32
    static let headerLength = 8 + 2 + 32 + 8 + saltLength + SecretStream.headerLength + HMACSHA256.outputLength
    /// The largest record a writer makes is a file chunk; anything much larger is damage.
    static let fileChunkLength = 64 << 10
    static let maximumSealedLength = 1 << 20
    static let streamInfo = Array("hush/v1/backup-stream".utf8) + [0]
    static let headerMACInfo = Array("hush/v1/backup-header".utf8) + [0]

    enum RecordType: UInt8 {
        case identity = 1
        case database = 2
        case table = 3
        case row = 4
        case file = 5
        case fileData = 6
        case end = 0x7F
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
        let identityKey: [UInt8]
        /// Milliseconds since 1970 when the archive was made.
        let createdAt: UInt64
        let salt: [UInt8]
        let streamHeader: [UInt8]

        /// Everything the MAC covers: the header without its last 32 bytes.
        var authenticated: [UInt8] {
            var bytes = BackupArchive.magic
            bytes += [UInt8(BackupArchive.version >> 8), UInt8(BackupArchive.version & 0xff)]
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
            guard version == BackupArchive.version else {
                throw HushError(.damagedFile, reason: "this backup archive has format version \(version); this hush reads version \(BackupArchive.version)",
                                suggestion: "restore it with a newer hush")
            }
            var offset = 10
            func take(_ count: Int) -> [UInt8] { defer { offset += count }; return Array(bytes[offset..<offset + count]) }
            let identityKey = take(32)
            let createdAt = take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let salt = take(BackupArchive.saltLength)
            let streamHeader = take(SecretStream.headerLength)
            let mac = take(HMACSHA256.outputLength)
            return (Header(identityKey: identityKey, createdAt: createdAt, salt: salt, streamHeader: streamHeader), mac)
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
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) throws(HushError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else { throw BackupArchive.damaged("a record is shorter than its contents say") }
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

    func finish() throws(HushError) {
        guard atEnd else { throw BackupArchive.damaged("a record has bytes after its contents") }
    }
}

/// Writes an archive to an open file: the header, then sealed records.
///
/// Sealed records are gathered into writes of about `writeLength` bytes (a
/// store of many small rows would otherwise cost a system call per row), and
/// one plaintext buffer is reused (and wiped) for every record. `finish()`
/// writes what is left; a writer dropped without it leaves an archive with no
/// end record, which every reader refuses.
final class BackupWriter {
    private let file: FileHandle
    private let pusher: SecretStream.Pusher
    private(set) var records: UInt64 = 0
    private(set) var bytesWritten: UInt64 = 0
    /// Sealed bytes not written to the file yet.
    private var pending: [UInt8] = []
    private var plaintext: [UInt8] = []
    static let writeLength = 1 << 20

    init(file: FileHandle, identityKey: [UInt8], recoveryKey: RecoveryKey, createdAt: UInt64,
         random: any RandomSource = SystemRandom()) throws {
        self.file = file
        let salt = random.bytes(BackupArchive.saltLength)
        let keys = BackupArchive.Keys(recoveryKey: recoveryKey, salt: salt)
        pusher = try SecretStream.Pusher(key: keys.stream)
        let header = BackupArchive.Header(identityKey: identityKey, createdAt: createdAt, salt: salt, streamHeader: pusher.header)
        try write(header.encoded(keys: keys))
    }

    /// A writer with a fixed salt and stream header, for test vectors only.
    init(file: FileHandle, identityKey: [UInt8], recoveryKey: RecoveryKey, createdAt: UInt64,
         fixedSalt salt: [UInt8], fixedStreamHeader streamHeader: [UInt8]) throws {
        self.file = file
        let keys = BackupArchive.Keys(recoveryKey: recoveryKey, salt: salt)
        pusher = try SecretStream.Pusher(key: keys.stream, fixedHeader: streamHeader)
        let header = BackupArchive.Header(identityKey: identityKey, createdAt: createdAt, salt: salt, streamHeader: streamHeader)
        try write(header.encoded(keys: keys))
    }

    private func write(_ bytes: [UInt8]) throws {
        pending += bytes
        bytesWritten += UInt64(bytes.count)
        if pending.count >= Self.writeLength { try flush() }
    }

    private func flush() throws {
        guard !pending.isEmpty else { return }
        try file.write(contentsOf: pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Seals and writes one record: `type || body`.
    func append<Body: Collection>(_ type: BackupArchive.RecordType, _ body: Body) throws where Body.Element == UInt8 {
        precondition(type != .end)
        plaintext.removeAll(keepingCapacity: true)
        plaintext.append(type.rawValue)
        plaintext.append(contentsOf: body)
        let sealed = pusher.push(plaintext)
        ConstantTime.wipe(&plaintext)
        try write(BackupArchive.bigEndian(UInt32(sealed.count)))
        try write(sealed)
        records += 1
    }

    /// The end record (tagged final): the number of records before it; then
    /// everything still gathered is written.
    func finish() throws {
        let body = [BackupArchive.RecordType.end.rawValue] + BackupArchive.bigEndian(records)
        let sealed = pusher.push(body, tag: .final)
        try write(BackupArchive.bigEndian(UInt32(sealed.count)) + sealed)
        try flush()
    }
}

/// Reads an archive record by record, checking each as it comes: the header's
/// MAC first, then every chunk's authentication, and at the end that the end
/// record came, counted every record, and nothing follows it.
final class BackupReader {
    let header: BackupArchive.Header
    private let file: FileHandle
    /// The file read in blocks of about a MiB: two reads per record (its length,
    /// then its bytes) would otherwise be two system calls per row.
    private var source: BlockReader
    private let puller: SecretStream.Puller
    private(set) var records: UInt64 = 0
    private var ended = false

    /// Opens `path` and checks its header with `recoveryKey`.
    ///
    /// - Throws: `HushError` of kind `notFound` (no such file), `damagedFile`
    ///   (not an archive, or a damaged header) or `invalidInput` (the key does not
    ///   open this archive: another account's, or a wrong one; or the path names a
    ///   named pipe, device or directory, refused unread).
    init(path: String, recoveryKey: RecoveryKey) throws(HushError) {
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
        self.file = file
        source = BlockReader(file: file)
        let bytes = try BackupReader.read(&source, BackupArchive.headerLength, what: "the header")
        let (header, mac) = try BackupArchive.Header.parse(bytes)
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

    deinit { try? file.close() }

    private static func read(_ source: inout BlockReader, _ count: Int, what: String) throws(HushError) -> [UInt8] {
        let bytes = try source.take(count)
        guard bytes.count == count else { throw BackupArchive.damaged("it ends in the middle of \(what) (cut short?)") }
        return bytes
    }

    /// The next record, or nil after the end record (checked: the count it
    /// carries matches, and the file ends there).
    func next() throws(HushError) -> (type: BackupArchive.RecordType, body: BackupRecordParser)? {
        if ended { return nil }
        let lengthBytes = try source.take(4)
        guard lengthBytes.count == 4 else {
            throw BackupArchive.damaged("it ends before its end record (cut short after \(records) records)")
        }
        let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
        guard length >= SecretStream.overhead + 1, length <= BackupArchive.maximumSealedLength else {
            throw BackupArchive.damaged("record \(records + 1) has an impossible length")
        }
        let sealed = try BackupReader.read(&source, length, what: "record \(records + 1)")
        let opened: (plaintext: [UInt8], tag: SecretStream.Tag)
        do { opened = try puller.pull(sealed) } catch {
            throw BackupArchive.damaged("record \(records + 1) fails its authentication (changed, moved or from another archive)")
        }
        guard let first = opened.plaintext.first, let type = BackupArchive.RecordType(rawValue: first) else {
            throw BackupArchive.damaged("record \(records + 1) has an unknown type")
        }
        var body = BackupRecordParser(Array(opened.plaintext.dropFirst()))
        guard (type == .end) == (opened.tag == .final) else { throw BackupArchive.damaged("record \(records + 1) is out of place") }
        if type == .end {
            guard try body.u64() == records else { throw BackupArchive.damaged("its end record counts a different number of records") }
            try body.finish()
            let trailing = (try? source.take(1)) ?? []
            guard trailing.isEmpty else { throw BackupArchive.damaged("it has bytes after its end record") }
            ended = true
            return nil
        }
        records += 1
        return (type, body)
    }
}

/// A file read in blocks, handed out in pieces of the lengths asked for.
struct BlockReader {
    let file: FileHandle
    private var block: [UInt8] = []
    private var offset = 0
    static let blockLength = 1 << 20

    init(file: FileHandle) { self.file = file }

    /// The next `count` bytes, or fewer when the file ends first.
    mutating func take(_ count: Int) throws(HushError) -> [UInt8] {
        var taken: [UInt8] = []
        taken.reserveCapacity(count)
        while taken.count < count {
            if offset == block.count {
                let data: Data?
                do { data = try file.read(upToCount: max(Self.blockLength, count - taken.count)) } catch {
                    throw HushError(.storage, reason: "could not read the backup archive: \(error.localizedDescription)")
                }
                guard let data, !data.isEmpty else { break }
                block = Array(data)
                offset = 0
            }
            let length = min(count - taken.count, block.count - offset)
            taken.append(contentsOf: block[offset..<offset + length])
            offset += length
        }
        return taken
    }
}
