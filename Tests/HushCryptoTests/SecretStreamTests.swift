import HushTesting
import Testing
import HushCrypto

@Suite struct SecretStreamTests {
    let key = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "stream-key"))
    let data = DeterministicRandom(seed: "stream-data").bytes(1000)
    let chunk = 100

    /// header || ten sealed chunks of `chunk + overhead` bytes.
    func sealed() throws -> [UInt8] { try SecretStream.seal(data, key: key, chunkSize: chunk) }
    func chunkRange(_ i: Int) -> Range<Int> {
        let start = SecretStream.headerLength + i * (chunk + SecretStream.overhead)
        return start..<(start + chunk + SecretStream.overhead)
    }

    @Test(arguments: [0, 1, 99, 100, 101, 1000])
    func roundTrips(length: Int) throws {
        let input = Array(data.prefix(length))
        let stream = try SecretStream.seal(input, key: key, chunkSize: chunk)
        #expect(try SecretStream.open(stream, key: key, chunkSize: chunk) == input)
    }

    @Test func droppingTheFinalChunkFails() throws {
        let stream = try sealed()
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try SecretStream.open(Array(stream[..<chunkRange(9).lowerBound]), key: key, chunkSize: chunk)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try SecretStream.open(Array(stream.dropLast()), key: key, chunkSize: chunk)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try SecretStream.open(Array(stream.prefix(SecretStream.headerLength)), key: key, chunkSize: chunk)
        }
    }

    @Test func reorderedChunksFail() throws {
        var stream = try sealed()
        let first = Array(stream[chunkRange(1)])
        let second = Array(stream[chunkRange(2)])
        stream.replaceSubrange(chunkRange(1), with: second)
        stream.replaceSubrange(chunkRange(2), with: first)
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try SecretStream.open(stream, key: key, chunkSize: chunk)
        }
    }

    @Test func droppedMiddleChunkFails() throws {
        var stream = try sealed()
        stream.removeSubrange(chunkRange(4))
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try SecretStream.open(stream, key: key, chunkSize: chunk)
        }
    }

    @Test func trailingBytesAfterTheFinalChunkFail() throws {
        let stream = try sealed()
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try SecretStream.open(stream + [0], key: key, chunkSize: chunk)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try SecretStream.open(stream + Array(stream[chunkRange(9)]), key: key, chunkSize: chunk)
        }
    }

    @Test(arguments: [0, 23, 24, 500, 1169])
    func tamperingAnywhereFails(offset: Int) throws {
        var stream = try sealed()
        stream[offset] ^= 0x01
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try SecretStream.open(stream, key: key, chunkSize: chunk)
        }
    }

    @Test func wrongKeyOrChunkSizeFails() throws {
        let stream = try sealed()
        let other = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "other"))
        #expect(throws: CryptoError.authenticationFailed) { _ = try SecretStream.open(stream, key: other, chunkSize: chunk) }
        #expect(throws: CryptoError.authenticationFailed) { _ = try SecretStream.open(stream, key: key, chunkSize: 50) }
        #expect(throws: CryptoError.self) { _ = try SecretStream.open(stream, key: key, chunkSize: 0) }
    }

    @Test func pullerRefusesChunksAfterTheFinalOne() throws {
        let pusher = try SecretStream.Pusher(key: key)
        let one = pusher.push([1, 2, 3] as [UInt8], tag: .final)
        let two = pusher.push([4] as [UInt8])
        let puller = try SecretStream.Puller(key: key, header: pusher.header)
        let (plain, tag) = try puller.pull(one)
        #expect(plain == [1, 2, 3])
        #expect(tag == .final)
        #expect(puller.finished)
        #expect(throws: CryptoError.authenticationFailed) { _ = try puller.pull(two) }
    }

    @Test func associatedDataMustMatch() throws {
        let pusher = try SecretStream.Pusher(key: key)
        let sealedChunk = pusher.push([1] as [UInt8], associatedData: [9])
        let puller = try SecretStream.Puller(key: key, header: pusher.header)
        #expect(throws: CryptoError.authenticationFailed) { _ = try puller.pull(sealedChunk, associatedData: [8]) }
    }
}
