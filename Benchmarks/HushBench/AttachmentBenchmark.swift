import Foundation
import Glibc
import HushCrypto
import HushProtocol
import HushRelayAPI
import HushRelayClient

/// Issue 14's figures: a file (256 MiB; `--mib N`) encrypted into an
/// attachment blob and uploaded, then downloaded and decrypted, on loopback
/// to a relay child process, beside raw secretstream (push, one 64 KiB buffer
/// sealed over and over in memory: the ceiling for this chunking) in the same run; and this process's peak RSS during each phase
/// (VmHWM, reset before each), which stays flat because nothing holds more
/// than a chunk. The Hush path is what `hush send --file` and `hush fetch
/// --out` do: AttachmentSealer to a file, a streamed POST, a streamed GET
/// through AttachmentOpener to a file (the resumable upload API, as
/// `hush` uses it), each chunk sealed or opened in place as AttachmentFiles
/// and VerifyingBlobSink do.
///
/// Measured on a shared 2-core VM (README, attachments, has the runs): 263–364
/// MiB/s encrypt+upload and 347–468 MiB/s download+decrypt, 20–29 % and 27–35 %
/// of raw secretstream in the same runs (226–281 and 335–447 MiB/s before the
/// 1 MiB upload pieces, the relay's write-behind, the in-place chunks and the
/// digest on its own thread), peak RSS 51–55 MiB. Profiled per 256 MiB:
/// sealing 0.62 CPU-s (secretstream 0.20, SHA-256 0.17 on its thread, the
/// blob's write 0.11), the upload 0.19 in the client and 0.30 in the relay
/// (socket reads, blob writes, the fsync), the download and decryption 0.89
/// (secretstream 0.18, SHA-256 0.16, the relay's sends 0.15, socket reads
/// 0.09, the plaintext's write 0.08): on 2 cores, at best about 32 % and 40 %
/// of raw, and less while the machine is shared.
enum AttachmentBenchmark {
    static func run(arguments: [String]) async throws {
        let mib = arguments.firstIndex(of: "--mib").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? 256
        let size = mib << 20
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hush-attachment-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plainPath = directory + "/file.bin", blobPath = directory + "/file.blob", outPath = directory + "/out.bin"
        let writeStart = ContinuousClock.now
        try writePatternFile(plainPath, size: size)
        let writeRate = Double(mib) / RelayBench.seconds(since: writeStart)
        let key = SecureBytes(randomCount: 32)
        print("file: \(mib) MiB, chunks of \(AttachmentBlob.chunkSize >> 10) KiB")

        // Raw secretstream in memory: the ceiling for the same chunking.
        let chunk = [UInt8](repeating: 0x5a, count: AttachmentBlob.chunkSize)
        let rawStart = ContinuousClock.now
        let pusher = try SecretStream.Pusher(key: key)
        for index in 0..<(size / chunk.count) {
            _ = pusher.push(chunk, tag: index == size / chunk.count - 1 ? .final : .message)
        }
        let rawSeconds = RelayBench.seconds(since: rawStart)
        let rawRate = Double(mib) / rawSeconds
        print("raw secretstream push: \(RelayBench.format(rawRate)) MiB/s")
        // The blob's digest is SHA-256 (PROTOCOL §10.3): BoringSSL's, with the CPU's SHA extensions.
        var hasher = SHA256.Hasher()
        let hashStart = ContinuousClock.now
        for _ in 0..<(size / chunk.count) { hasher.update(chunk) }
        _ = hasher.finalize()
        print("raw SHA-256 (incremental, BoringSSL): \(RelayBench.format(Double(mib) / RelayBench.seconds(since: hashStart))) MiB/s")
        // For comparison only: libsodium's portable SHA-256 (what the digest used before), 64 KiB at a time.
        let sodiumStart = ContinuousClock.now
        for _ in 0..<(size / chunk.count) { _ = SHA256.hash(chunk) }
        print("raw SHA-256 (libsodium, for comparison): \(RelayBench.format(Double(mib) / RelayBench.seconds(since: sodiumStart))) MiB/s")
        // For comparison only: what a BLAKE2b digest would cost (64 KiB at a time).
        let blakeStart = ContinuousClock.now
        for _ in 0..<(size / chunk.count) { _ = BLAKE2b.hash(chunk) }
        print("raw BLAKE2b (libsodium, for comparison): \(RelayBench.format(Double(mib) / RelayBench.seconds(since: blakeStart))) MiB/s")

        let relay = try RelayBench.ChildRelay(driver: "memory")
        defer { relay.stop() }
        let http = RelayBench.makeHTTPClient(connections: 4)
        let client = try await RelayBench.Identity(index: 0).enroll(baseURL: relay.baseURL, http: http)

        // Encrypt + upload.
        resetPeak()
        let sendStart = ContinuousClock.now
        // As AttachmentFiles.seal: each chunk read into one reused buffer, sealed in place, written from there.
        let sealer = try AttachmentSealer(key: key, plaintextSize: UInt64(size))
        let input = open(plainPath, O_RDONLY | O_CLOEXEC), output = open(blobPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard input >= 0, output >= 0 else { throw BenchError("cannot open the bench files") }
        var chunkBuffer = [UInt8](repeating: 0, count: AttachmentBlob.chunkSize)
        repeat {
            try chunkBuffer.withUnsafeMutableBytes { buffer in
                let count = try readFully(input, into: buffer)
                try sealer.seal(UnsafeRawBufferPointer(rebasing: buffer[..<count])) { try writeAll(output, $0) }
            }
        } while !sealer.isComplete
        try [UInt8](repeating: 0, count: Int(sealer.paddingLength)).withUnsafeBytes { try writeAll(output, $0) }
        close(input)
        close(output)
        let digest = try sealer.digest()
        let encryptSeconds = RelayBench.seconds(since: sendStart)
        let upload = try await client.startBlobUpload(length: Int64(sealer.blobLength))
        // In 8 MiB parts, as `hush` sends them.
        var offset: Int64 = 0, finished: BlobUploadResponse?
        while finished == nil {
            let (blob, status) = try await client.continueBlobUpload(id: upload.uploadID, file: blobPath, from: offset, to: offset + (8 << 20),
                                                                     length: Int64(sealer.blobLength))
            finished = blob
            offset = Int64(status?.received ?? 0)
        }
        guard let uploaded = finished else {
            throw BenchError("the relay did not take the whole blob")
        }
        let sendSeconds = RelayBench.seconds(since: sendStart)
        let sendPeak = peakBytes()

        // Download + decrypt.
        resetPeak()
        let fetchStart = ContinuousClock.now
        let opener = try AttachmentOpener(key: key, plaintextSize: UInt64(size), digest: digest)
        // As VerifyingBlobSink: each piece checked and decrypted in place, the plaintext written from the opener's buffer.
        let plain = open(outPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard plain >= 0 else { throw BenchError("cannot create \(outPath)") }
        try await client.downloadBlob(id: uploaded.blobID, maxBytes: Int64(sealer.blobLength)) { bytes in
            try opener.consume(bytes) { try writeAll(plain, $0) }
        }
        try opener.finish()
        close(plain)
        let fetchSeconds = RelayBench.seconds(since: fetchStart)
        let fetchPeak = peakBytes()
        // The transport alone: the same blob downloaded with nothing done to its bytes.
        let transportStart = ContinuousClock.now
        var transported = 0
        try await client.downloadBlob(id: uploaded.blobID, maxBytes: Int64(sealer.blobLength)) { bytes in transported += bytes.count }
        let transportRate = Double(transported >> 20) / RelayBench.seconds(since: transportStart)
        try await http.shutdown()
        print("raw file write (page cache): \(RelayBench.format(writeRate)) MiB/s; download alone (no decryption, nothing written): \(RelayBench.format(transportRate)) MiB/s; upload alone: \(RelayBench.format(Double(mib) / (sendSeconds - encryptSeconds))) MiB/s")

        let sendRate = Double(mib) / sendSeconds, fetchRate = Double(mib) / fetchSeconds
        print("encrypt+upload: \(RelayBench.format(sendSeconds, 2)) s (encrypt to disk \(RelayBench.format(encryptSeconds, 2)) s), "
              + "\(RelayBench.format(sendRate)) MiB/s = \(RelayBench.format(100 * sendRate / rawRate))% of raw; peak RSS \(peakBytesText(sendPeak))")
        print("download+decrypt: \(RelayBench.format(fetchSeconds, 2)) s, \(RelayBench.format(fetchRate)) MiB/s = "
              + "\(RelayBench.format(100 * fetchRate / rawRate))% of raw; peak RSS \(peakBytesText(fetchPeak))")
        print("blob: \(sealer.blobLength) bytes for \(size) (padding \(sealer.paddingLength))")
    }

    static func writePatternFile(_ path: String, size: Int) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131) })
        for _ in 0..<(size >> 20) { try handle.write(contentsOf: block) }
        try handle.close()
    }

    /// Fills `buffer` from `descriptor`; fewer bytes only at the end of the file.
    static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let got = read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            guard got >= 0 else { throw BenchError("read failed: errno \(errno)") }
            if got == 0 { break }
            filled += got
        }
        return filled
    }

    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let wrote = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            guard wrote > 0 else { throw BenchError("write failed: errno \(errno)") }
            offset += wrote
        }
    }

    /// Resets this process's peak RSS (Linux: 5 to /proc/self/clear_refs).
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// VmHWM of this process.
    static func peakBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }

    static func peakBytesText(_ bytes: Int) -> String { "\(bytes >> 20) MiB" }
}
