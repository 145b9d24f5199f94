import CSodium

/// libsodium's secretstream (XChaCha20-Poly1305 with a rekeying state): a
/// sequence of authenticated chunks that cannot be reordered, dropped or
/// truncated without detection, for files and other long payloads.
public enum SecretStream {
    public static let keyLength = Int(crypto_secretstream_xchacha20poly1305_KEYBYTES)
    public static let headerLength = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
    /// Bytes each chunk adds: a 1-byte encrypted tag and a 16-byte MAC.
    public static let overhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)

    public enum Tag: UInt8, Sendable {
        case message = 0
        case push = 1
        case rekey = 2
        case final = 3
    }

    /// State of one stream, kept off the Swift heap's copy-on-write paths and
    /// wiped on release.
    private final class State {
        let pointer = UnsafeMutablePointer<crypto_secretstream_xchacha20poly1305_state>.allocate(capacity: 1)
        deinit {
            sodium_memzero(pointer, MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.size)
            pointer.deallocate()
        }
    }

    /// The encrypting end.
    public final class Pusher {
        private let state = State()
        /// Send this first; the puller needs it.
        public let header: [UInt8]

        public init(key: SecureBytes) throws(CryptoError) {
            try requireLength(key.count, keyLength, "secretstream key")
            Sodium.ensureInitialised()
            var header = [UInt8](repeating: 0, count: headerLength)
            let statePointer = state.pointer
            key.withUnsafeBytes { k in
                _ = crypto_secretstream_xchacha20poly1305_init_push(statePointer, &header, k.bindMemory(to: UInt8.self).baseAddress!)
            }
            self.header = header
        }

        /// A pusher with a given header instead of a random one, for test
        /// vectors only: a header must never be used twice with one key. Both
        /// ends derive the same state from (key, header) (libsodium's
        /// `init_push` draws the header and then derives exactly what
        /// `init_pull` derives), so the state is set up with `init_pull`.
        /// SPI: only the vector code (`@_spi(Vectors) import HushCrypto`) sees it.
        @_spi(Vectors)
        public init(key: SecureBytes, fixedHeader header: [UInt8]) throws(CryptoError) {
            try requireLength(key.count, keyLength, "secretstream key")
            try requireLength(header.count, headerLength, "secretstream header")
            Sodium.ensureInitialised()
            let statePointer = state.pointer
            let status = key.withUnsafeBytes { k in
                crypto_secretstream_xchacha20poly1305_init_pull(statePointer, header, k.bindMemory(to: UInt8.self).baseAddress!)
            }
            guard status == 0 else { throw .authenticationFailed }
            self.header = header
        }

        public func push<M: ContiguousByteStorage>(_ chunk: M, tag: Tag = .message, associatedData: [UInt8] = []) -> [UInt8] {
            chunk.withUnsafeBytes { message in
                [UInt8](unsafeUninitializedCapacity: message.count + overhead) { out, written in
                    var produced: UInt64 = 0
                    crypto_secretstream_xchacha20poly1305_push(
                        state.pointer, out.baseAddress!, &produced,
                        message.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count),
                        associatedData, UInt64(associatedData.count), tag.rawValue)
                    written = Int(produced)
                }
            }
        }

        /// Seals `message` straight into `out` (at least `message.count +
        /// overhead` bytes) and returns the bytes written: for callers that
        /// reuse one buffer per chunk instead of allocating an array each time.
        /// `associatedData` is authenticated with the chunk, not encrypted (and
        /// not part of `out`): only Poly1305 reads it, about a third of what
        /// sealing the same bytes costs.
        public func push(_ message: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                         tag: Tag = .message, into out: UnsafeMutableRawBufferPointer) -> Int {
            precondition(out.count >= message.count + overhead, "secretstream output buffer too short")
            var produced: UInt64 = 0
            crypto_secretstream_xchacha20poly1305_push(
                state.pointer, out.bindMemory(to: UInt8.self).baseAddress!, &produced,
                message.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count),
                associatedData.bindMemory(to: UInt8.self).baseAddress, UInt64(associatedData.count), tag.rawValue)
            return Int(produced)
        }
    }

    /// The decrypting end.
    public final class Puller {
        private let state = State()
        public private(set) var finished = false

        public init(key: SecureBytes, header: [UInt8]) throws(CryptoError) {
            try requireLength(key.count, keyLength, "secretstream key")
            try requireLength(header.count, headerLength, "secretstream header")
            Sodium.ensureInitialised()
            let status = key.withUnsafeBytes { k in
                crypto_secretstream_xchacha20poly1305_init_pull(state.pointer, header, k.bindMemory(to: UInt8.self).baseAddress!)
            }
            guard status == 0 else { throw .authenticationFailed }
        }

        /// Decrypts the next chunk. A chunk after the final one is refused.
        public func pull<C: ContiguousByteStorage>(_ chunk: C, associatedData: [UInt8] = []) throws(CryptoError) -> (plaintext: [UInt8], tag: Tag) {
            guard !finished else { throw .authenticationFailed }
            var rawTag: UInt8 = 0
            var status: Int32 = -1
            let plain: [UInt8] = chunk.withUnsafeBytes { sealed in
                guard sealed.count >= overhead else { return [] }
                return [UInt8](unsafeUninitializedCapacity: sealed.count - overhead) { out, written in
                    var produced: UInt64 = 0
                    status = crypto_secretstream_xchacha20poly1305_pull(
                        state.pointer, out.baseAddress, &produced, &rawTag,
                        sealed.bindMemory(to: UInt8.self).baseAddress!, UInt64(sealed.count),
                        associatedData, UInt64(associatedData.count))
                    written = status == 0 ? Int(produced) : 0
                }
            }
            guard status == 0, let tag = Tag(rawValue: rawTag) else { throw .authenticationFailed }
            if tag == .final { finished = true }
            return (plain, tag)
        }

        /// Decrypts the next chunk `sealed` straight into `out` (at least
        /// `sealed.count - overhead` bytes); returns the plaintext's length and
        /// tag. Nothing in `out` may be used when it throws, and nothing in
        /// `associatedData` (authenticated with the chunk) before it returned.
        public func pull(_ sealed: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                         into out: UnsafeMutableRawBufferPointer) throws(CryptoError) -> (count: Int, tag: Tag) {
            guard !finished, sealed.count >= overhead else { throw .authenticationFailed }
            precondition(out.count >= sealed.count - overhead, "secretstream output buffer too short")
            var rawTag: UInt8 = 0
            var produced: UInt64 = 0
            let status = crypto_secretstream_xchacha20poly1305_pull(
                state.pointer, out.bindMemory(to: UInt8.self).baseAddress, &produced, &rawTag,
                sealed.bindMemory(to: UInt8.self).baseAddress!, UInt64(sealed.count),
                associatedData.bindMemory(to: UInt8.self).baseAddress, UInt64(associatedData.count))
            guard status == 0, let tag = Tag(rawValue: rawTag) else { throw .authenticationFailed }
            if tag == .final { finished = true }
            return (Int(produced), tag)
        }
    }

    /// Seals `data` as header || chunk… with chunks of `chunkSize` plaintext
    /// bytes, the last one tagged final. An empty input is one empty final chunk.
    public static func seal<D: ContiguousByteStorage>(_ data: D, key: SecureBytes, chunkSize: Int = 64 << 10) throws(CryptoError) -> [UInt8] {
        guard chunkSize > 0 else { throw .parametersOutOfBounds("secretstream chunk size must be positive") }
        let pusher = try Pusher(key: key)
        var out = pusher.header
        data.withUnsafeBytes { bytes in
            out.reserveCapacity(headerLength + bytes.count + (bytes.count / chunkSize + 1) * overhead)
            var offset = 0
            repeat {
                let end = min(offset + chunkSize, bytes.count)
                let tag: Tag = end == bytes.count ? .final : .message
                out += pusher.push(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), tag: tag)
                offset = end
            } while offset < bytes.count
        }
        return out
    }

    /// Opens what `seal` made with the same `chunkSize`. Truncation (no final
    /// chunk), reordering, tampering and bytes after the final chunk all fail.
    public static func open(_ sealed: [UInt8], key: SecureBytes, chunkSize: Int = 64 << 10) throws(CryptoError) -> [UInt8] {
        guard chunkSize > 0 else { throw .parametersOutOfBounds("secretstream chunk size must be positive") }
        guard sealed.count >= headerLength + overhead else { throw .authenticationFailed }
        let puller = try Puller(key: key, header: Array(sealed[..<headerLength]))
        var out = [UInt8]()
        out.reserveCapacity(sealed.count)
        var offset = headerLength
        while offset < sealed.count {
            let end = min(offset + chunkSize + overhead, sealed.count)
            let (plain, tag) = try puller.pull(sealed[offset..<end])
            out += plain
            offset = end
            if tag == .final { break }
        }
        guard puller.finished, offset == sealed.count else { throw .authenticationFailed }
        return out
    }
}
