import Foundation
import HushCrypto
import HushTesting

/// Each crypto operation through the Hush API and through direct libsodium
/// calls (RawSodiumBaseline), in the same process, interleaved round by
/// round; the best round of each counts. Target: Hush/raw >= 0.95 for
/// XChaCha20-Poly1305 at 1 KiB and above.
///
/// Timed in thread CPU time, over many short rounds rather than a few long
/// ones: the machine is shared, and the best of many short windows is the
/// one least disturbed by neighbours (caches, frequency).
///
/// Arguments: `--rounds N` (default 15; at most 3 for Argon2id), `--skip-argon2` (Argon2id at the
/// moderate cost takes about a second per call), `--only TEXT` (operations
/// whose name contains TEXT, for profiling one of them).
enum CryptoBenchmark {
    struct Operation {
        let name: String
        let hush: () throws -> Void
        let raw: () -> Void
    }

    static func run(arguments: [String]) async throws {
        let rounds = arguments.firstIndex(of: "--rounds").flatMap { Int(arguments[$0 + 1]) } ?? 15
        var operations = try aeadOperations() + x25519Operations() + ed25519Operations() + [hkdfOperation()]
        if !arguments.contains("--skip-argon2") { operations.append(try argon2Operation()) }
        if let only = arguments.firstIndex(of: "--only").map({ arguments[$0 + 1] }) {
            operations = operations.filter { $0.name.contains(only) }
        }

        print(pad("operation", 46) + pad("Hush ops/s", 14, right: true) + pad("raw ops/s", 14, right: true) + pad("Hush/raw", 10, right: true))
        for operation in operations {
            let slow = operation.name.hasPrefix("Argon2id")
            let (hush, raw) = try measure(operation, rounds: slow ? min(rounds, 3) : rounds)
            print(pad(operation.name, 46) + pad(format(hush), 14, right: true) + pad(format(raw), 14, right: true)
                  + pad(String(format: "%.3f", hush / raw), 10, right: true))
        }
        print("(best of \(rounds) interleaved rounds of about 40 ms of thread CPU time each, Argon2id best of \(min(rounds, 3)); checksum \(sink))")
    }

    // MARK: Operations

    nonisolated(unsafe) static var sink: UInt8 = 0

    static func aeadOperations() throws -> [Operation] {
        let random = DeterministicRandom(seed: "bench-aead")
        let key = SecureBytes(randomCount: 32, using: random)
        let keyBytes = key.copyBytes()
        let nonce = random.bytes(24)
        let aad = random.bytes(16)
        return [100, 1024, 64 << 10].flatMap { size in
            let plaintext = random.bytes(size)
            let sealedBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size + 16)
            let openedBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
            let label = size >= 1024 ? "\(size >> 10) KiB" : "\(size) B"
            // The buffer-reusing API, against raw calls into caller-provided buffers.
            nonisolated(unsafe) var sealedArray = [UInt8](), openedArray = [UInt8]()
            let intoBuffers = Operation(
                name: "XChaCha20-Poly1305 seal+open \(label) (into)",
                hush: {
                    try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad, into: &sealedArray)
                    try XChaCha20Poly1305.open(sealedArray, key: key, nonce: nonce, associatedData: aad, into: &openedArray)
                    sink &+= openedArray[0]
                },
                raw: {
                    _ = RawSodiumBaseline.xChaCha20Poly1305Seal(out: sealedBuffer, message: plaintext, messageLength: size,
                                                                ad: aad, adLength: aad.count, nonce: nonce, key: keyBytes)
                    let status = RawSodiumBaseline.xChaCha20Poly1305Open(out: openedBuffer, sealed: sealedBuffer, sealedLength: size + 16,
                                                                         ad: aad, adLength: aad.count, nonce: nonce, key: keyBytes)
                    sink &+= openedBuffer[0] &+ UInt8(truncatingIfNeeded: status)
                })
            // The array-returning API: two allocations per seal+open that raw does not make.
            let returningArrays = Operation(
                name: "XChaCha20-Poly1305 seal+open \(label) (arrays)",
                hush: {
                    let sealed = try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
                    let opened = try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad)
                    sink &+= opened[0]
                },
                raw: {
                    _ = RawSodiumBaseline.xChaCha20Poly1305Seal(out: sealedBuffer, message: plaintext, messageLength: size,
                                                                ad: aad, adLength: aad.count, nonce: nonce, key: keyBytes)
                    let status = RawSodiumBaseline.xChaCha20Poly1305Open(out: openedBuffer, sealed: sealedBuffer, sealedLength: size + 16,
                                                                         ad: aad, adLength: aad.count, nonce: nonce, key: keyBytes)
                    sink &+= openedBuffer[0] &+ UInt8(truncatingIfNeeded: status)
                })
            return [intoBuffers, returningArrays]
        }
    }

    /// Hush's X25519 follows the key's storage (SECURITY.md): a short-lived
    /// (`.wiped`) key computes with BoringSSL, a `.guarded` one with
    /// libsodium; both beside raw libsodium.
    static func x25519Operations() throws -> [Operation] {
        let random = DeterministicRandom(seed: "bench-x25519")
        let alice = X25519.PrivateKey(using: random)
        let guarded = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: alice.rawRepresentation.copyBytes(), storage: .guarded))
        let bob = X25519.PrivateKey(using: random)
        let scalar = alice.rawRepresentation.copyBytes()
        let point = bob.publicKey.rawRepresentation
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
        let raw = {
            _ = RawSodiumBaseline.x25519(out: out, scalar: scalar, point: point)
            sink &+= out[0]
        }
        return [
            Operation(name: "X25519 agreement (short-lived key)",
                      hush: { sink &+= try alice.sharedSecret(with: bob.publicKey).withUnsafeBytes { $0[0] } }, raw: raw),
            Operation(name: "X25519 agreement (guarded key)",
                      hush: { sink &+= try guarded.sharedSecret(with: bob.publicKey).withUnsafeBytes { $0[0] } }, raw: raw),
        ]
    }

    static func ed25519Operations() throws -> [Operation] {
        let random = DeterministicRandom(seed: "bench-ed25519")
        let key = Ed25519.PrivateKey(using: random)
        let message = random.bytes(100)
        let seed = key.seed.copyBytes()
        let publicKey = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
        let secretKey = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        _ = RawSodiumBaseline.ed25519Keypair(publicKey: publicKey, secretKey: secretKey, seed: seed)
        let signatureBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        let signature = key.signature(for: message)
        return [
            Operation(
                name: "Ed25519 sign (100 B)",
                hush: { sink &+= key.signature(for: message)[0] },
                raw: {
                    _ = RawSodiumBaseline.ed25519Sign(signature: signatureBuffer, message: message, messageLength: message.count, secretKey: secretKey)
                    sink &+= signatureBuffer[0]
                }),
            Operation(
                name: "Ed25519 verify (100 B)",
                hush: { sink &+= key.publicKey.isValidSignature(signature, for: message) ? 1 : 0 },
                raw: {
                    sink &+= RawSodiumBaseline.ed25519Verify(signature: signature, message: message, messageLength: message.count,
                                                             publicKey: publicKey) == 0 ? 1 : 0
                }),
        ]
    }

    static func hkdfOperation() -> Operation {
        let random = DeterministicRandom(seed: "bench-hkdf")
        let ikm = SecureBytes(randomCount: 32, using: random)
        let ikmBytes = ikm.copyBytes()
        let salt = random.bytes(32)
        let info = Array("hush bench".utf8)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        return Operation(
            name: "HKDF-SHA256 (32 B in, 64 B out)",
            hush: {
                let okm = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, length: 64)
                sink &+= okm.withUnsafeBytes { $0[0] }
            },
            raw: {
                RawSodiumBaseline.hkdfSHA256(out: out, outLength: 64, ikm: ikmBytes, ikmLength: 32, salt: salt, saltLength: salt.count,
                                             info: info, infoLength: info.count)
                sink &+= out[0]
            })
    }

    static func argon2Operation() throws -> Operation {
        let cost = Argon2id.Cost.moderate
        let salt = [UInt8](repeating: 0x11, count: Argon2id.saltLength)
        let passphrase = Array("correct horse battery staple".utf8)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
        return Operation(
            name: "Argon2id moderate (3 passes, 256 MiB)",
            hush: {
                let key = try Argon2id.deriveKey(passphrase: passphrase, salt: salt, cost: cost)
                sink &+= key.withUnsafeBytes { $0[0] }
            },
            raw: {
                let status = passphrase.withUnsafeBufferPointer { p in
                    p.withMemoryRebound(to: CChar.self) { c in
                        RawSodiumBaseline.argon2id(out: out, outLength: 32, passphrase: c.baseAddress!, passphraseLength: c.count,
                                                   salt: salt, operations: UInt64(cost.operations), memoryBytes: Int(cost.memoryBytes))
                    }
                }
                sink &+= out[0] &+ UInt8(truncatingIfNeeded: status)
            })
    }

    // MARK: Measuring

    /// CPU time of the calling thread, in seconds. The machine is shared, so
    /// wall-clock time would also count the time neighbours held the core;
    /// thread CPU time counts only this loop's own work.
    static func threadCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func cpuSeconds(_ iterations: Int, _ body: () throws -> Void) rethrows -> Double {
        let start = threadCPUSeconds()
        for _ in 0..<iterations { try body() }
        return threadCPUSeconds() - start
    }

    /// Iterations so that one timed run takes about `target` seconds of CPU.
    static func calibrate(_ body: () throws -> Void, target: Double = 0.04) rethrows -> Int {
        var iterations = 1
        while true {
            let elapsed = try cpuSeconds(iterations, body)
            if elapsed >= target / 4 || iterations >= 1 << 24 {
                return max(1, Int(Double(iterations) * target / max(elapsed, 1e-9)))
            }
            iterations *= 4
        }
    }

    static func opsPerSecond(_ iterations: Int, _ body: () throws -> Void) rethrows -> Double {
        Double(iterations) / max(try cpuSeconds(iterations, body), 1e-9)
    }

    /// Best ops/s of each over `rounds`, alternating which side goes first.
    static func measure(_ operation: Operation, rounds: Int) throws -> (hush: Double, raw: Double) {
        let hushIterations = try calibrate(operation.hush)
        let rawIterations = calibrate(operation.raw)
        var best = (hush: 0.0, raw: 0.0)
        for round in 0..<rounds {
            if round % 2 == 0 {
                best.hush = max(best.hush, try opsPerSecond(hushIterations, operation.hush))
                best.raw = max(best.raw, opsPerSecond(rawIterations, operation.raw))
            } else {
                best.raw = max(best.raw, opsPerSecond(rawIterations, operation.raw))
                best.hush = max(best.hush, try opsPerSecond(hushIterations, operation.hush))
            }
        }
        return best
    }

    static func format(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return right ? padding + text : text + padding
    }
}
