import Crypto
import Foundation
import HushRelayAPI
import HushRelayClient
import HushSubprocess
import HushTesting
import SwiftASN1
import Testing
import X509

/// `hush relay serve --tls-certificate/--tls-key` with a certificate a CA
/// issued (a throwaway CA made here), as a real process. A `#pin=` stands in
/// only for a self-signed key: with the matching pin the client says the
/// certificate is CA-issued and what to use instead, rather than a vague
/// handshake failure; a wrong pin is still a pin mismatch.
@Suite struct CAIssuedPinTests {
    /// A CA and a leaf for 127.0.0.1 it signed: the chain (leaf first) and the leaf's key, as PEM files.
    private static func issue(into directory: TemporaryDirectory) throws -> (chain: String, key: String, leafPin: [UInt8]) {
        let caKey = P256.Signing.PrivateKey(), leafKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("hush test CA") }
        let leafName = try DistinguishedName { CommonName("127.0.0.1") }
        let now = Date()
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                KeyUsage(keyCertSign: true)
            },
            issuerPrivateKey: .init(caKey))
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(leafKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: caName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey))
        let chain = directory.path + "/fullchain.pem", key = directory.path + "/privkey.pem"
        try (leaf.serializeAsPEM().pemString + "\n" + ca.serializeAsPEM().pemString + "\n").write(toFile: chain, atomically: true, encoding: .utf8)
        guard FileManager.default.createFile(atPath: key, contents: Data(leafKey.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TestFailure("cannot write the key")
        }
        return (chain, key, Array(SHA256.hash(data: leafKey.publicKey.derRepresentation)))
    }

    @Test func aPinForACAIssuedCertificateSaysToLeaveThePinOut() async throws {
        let directory = try TemporaryDirectory()
        let (chain, key, leafPin) = try Self.issue(into: directory)
        let relay = try ServeProcessTests.startHush(["relay", "serve", "--port", "0", "--tls-certificate", chain, "--tls-key", key,
                                                                 "--data", directory.path + "/relay", "--log-level", "warning"])
        defer { relay.stop() }
        let line = try #require(ServeProcessTests.waitForLine(relay, prefix: "hush relay key pin: "))
        // The relay prints the leaf's pin, the one computed here.
        #expect(line.contains(RelayKeyPin.encode(leafPin)), "\(line)")
        // "… (clients use https://127.0.0.1:PORT#pin=…)": the URL before "#".
        let url: Substring = line.split(separator: " ").last ?? ""
        let base = String(url.prefix { $0 != "#" })
        #expect(base.hasPrefix("https://127.0.0.1:"), "\(line)")

        await #expect {
            try await RelayClient(baseURL: base + "#pin=" + RelayKeyPin.encode(leafPin)).health()
        } throws: { error in
            guard case let .invalidRelayURL(why)? = error as? RelayClientError else { return false }
            return why.contains("issued by a CA") && why.contains("without #pin=")
        }
        let wrongPin = String(repeating: "A", count: 43)
        await #expect {
            try await RelayClient(baseURL: base + "#pin=" + wrongPin).health()
        } throws: { error in
            guard case .pinMismatch? = error as? RelayClientError else { return false }
            return true
        }
        // Without a pin the system's trust store decides, and it does not know this CA.
        await #expect(throws: RelayClientError.self) { try await RelayClient(baseURL: base).health() }
    }
}
