import HushCrypto
@testable import HushProtocol
import Testing

@Suite struct SafetyNumberTests {
    @Test func bothSidesSeeTheSameNumberAndMatchingCodes() throws {
        let alice = try Party("alice").identity.publicKey, bob = try Party("bob").identity.publicKey
        let a = SafetyNumber(local: alice, remote: bob), b = SafetyNumber(local: bob, remote: alice)
        #expect(a.digits == b.digits)
        #expect(a.digits.count == 60)
        #expect(a.grouped.split(separator: " ").count == 12)
        #expect(a.matches(displayed: b.grouped))
        #expect(try a.scannable.matches(scanned: b.scannable.serialized()))
        #expect(try !a.scannable.matches(scanned: a.scannable.serialized()))
    }

    @Test func identityKeyChangeIsDetectedAndChangesTheNumber() throws {
        let alice = try Party("alice").identity.publicKey, bob = try Party("bob").identity.publicKey
        let newBob = try Party("bob, reinstalled").identity.publicKey
        #expect(IdentityKeyChange.check(known: nil, presented: bob) == .firstUse)
        #expect(IdentityKeyChange.check(known: bob, presented: bob) == .unchanged)
        let change = IdentityKeyChange.check(known: bob, presented: newBob)
        #expect(change == .changed(previous: bob, presented: newBob))
        #expect(!change.maySend)
        let before = SafetyNumber(local: alice, remote: bob), after = SafetyNumber(local: alice, remote: newBob)
        #expect(before.digits != after.digits)
        #expect(!before.matches(displayed: after.digits))
        #expect(try !before.scannable.matches(scanned: SafetyNumber(local: newBob, remote: alice).scannable.serialized()))
    }

    @Test func scannableDecodingIsStrict() throws {
        let code = ScannableFingerprint(version: 2, localHash: [UInt8](repeating: 0x12, count: 32), remoteHash: [UInt8](repeating: 0xBA, count: 32))
        // libsignal's fingerprint_encodings test.
        #expect(Hex.encode(code.serialized()) == "080212220a20" + String(repeating: "12", count: 32) + "1a220a20" + String(repeating: "ba", count: 32))
        #expect(try ScannableFingerprint(deserializing: code.serialized()) == code)
        #expect(throws: ProtocolError.self) { try ScannableFingerprint(deserializing: code.serialized() + [0]) }
        #expect(throws: ProtocolError.self) { try ScannableFingerprint(deserializing: Array(code.serialized().dropLast())) }
        let v1 = ScannableFingerprint(version: 1, localHash: code.remote, remoteHash: code.local)
        #expect(throws: ProtocolError.self) { try code.matches(scanned: v1.serialized()) }
    }
}
