import Testing
import HushCrypto

@Suite struct Argon2idTests {
    let salt = [UInt8](repeating: 0x5A, count: 16)

    @Test func sameInputsGiveTheSameKey() throws {
        let a = try Argon2id.deriveKey(passphrase: Array("correct horse".utf8), salt: salt, cost: .insecureTestOnly)
        let b = try Argon2id.deriveKey(passphrase: Array("correct horse".utf8), salt: salt, cost: .insecureTestOnly)
        #expect(a == b)
        #expect(a.count == 32)
        #expect(a != SecureBytes(count: 32))
    }

    @Test func saltPassphraseAndCostEachChangeTheKey() throws {
        let base = try Argon2id.deriveKey(passphrase: Array("pw".utf8), salt: salt, cost: .insecureTestOnly)
        var otherSalt = salt
        otherSalt[0] ^= 1
        #expect(try Argon2id.deriveKey(passphrase: Array("pw".utf8), salt: otherSalt, cost: .insecureTestOnly) != base)
        #expect(try Argon2id.deriveKey(passphrase: Array("pW".utf8), salt: salt, cost: .insecureTestOnly) != base)
        let twoPasses = try Argon2id.Cost(operations: 2, memoryBytes: 8 << 10)
        #expect(try Argon2id.deriveKey(passphrase: Array("pw".utf8), salt: salt, cost: twoPasses) != base)
        #expect(try Argon2id.deriveKey(passphrase: [UInt8](), salt: salt, cost: .insecureTestOnly).count == 32)
    }

    /// Costs outside the bounds cannot even be constructed, so no derivation
    /// can start with them: a crafted file cannot make an unlock run for minutes.
    static let outOfBounds: [(operations: UInt32, memory: UInt64)] = [
        (0, 8 << 10),
        (11, 8 << 10),
        (UInt32.max, 8 << 10),
        (1, (8 << 10) - 1),
        (1, (1 << 30) + 1),
        (1, UInt64.max),
    ]

    @Test(arguments: outOfBounds)
    func costsOutsideTheBoundsAreRefused(cost: (operations: UInt32, memory: UInt64)) {
        #expect(throws: CryptoError.self) { _ = try Argon2id.Cost(operations: cost.operations, memoryBytes: cost.memory) }
    }

    @Test func boundaryCostsAreAccepted() throws {
        #expect(try Argon2id.Cost(operations: 10, memoryBytes: 1 << 30) == Argon2id.Cost.maximum)
        #expect(try Argon2id.Cost(operations: 1, memoryBytes: 8 << 10) == Argon2id.Cost.minimum)
        #expect(Argon2id.Cost.moderate.operations <= Argon2id.Cost.maximum.operations)
        #expect(Argon2id.Cost.sensitive.memoryBytes <= Argon2id.Cost.maximum.memoryBytes)
    }

    @Test func wrongSaltOrOutputLengthIsRefused() {
        #expect(throws: CryptoError.self) {
            _ = try Argon2id.deriveKey(passphrase: [1] as [UInt8], salt: Array(salt.prefix(15)), cost: .insecureTestOnly)
        }
        #expect(throws: CryptoError.self) {
            _ = try Argon2id.deriveKey(passphrase: [1] as [UInt8], salt: salt, cost: .insecureTestOnly, length: 15)
        }
        #expect(throws: CryptoError.self) {
            _ = try Argon2id.deriveKey(passphrase: [1] as [UInt8], salt: salt, cost: .insecureTestOnly, length: 1025)
        }
    }
}
