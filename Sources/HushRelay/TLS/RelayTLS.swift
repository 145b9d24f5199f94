import Crypto
import Foundation
import HushCrypto
import HushRelayAPI
import NIOSSL
import SwiftASN1
import X509

/// The relay's own TLS: a certificate and key from files, or a self-signed
/// pair created in the data directory on first start. Either way the relay
/// knows its key pin (`RelayKeyPin`), which clients can put in the relay URL
/// and which login signatures name.
public struct RelayTLS: Sendable {
    let context: NIOSSLContext
    /// SHA-256 of the certificate's public key (SubjectPublicKeyInfo, DER).
    public let pin: [UInt8]

    public init(certificateFile: String, keyFile: String) throws {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw RelayTLSError("cannot read the TLS certificate \(certificateFile) (PEM expected): \(error)")
        }
        // The key's error never quotes the key file's contents.
        do { key = try NIOSSLPrivateKey(file: keyFile, format: .pem) } catch {
            throw RelayTLSError("cannot read the TLS private key \(keyFile) (PEM expected)")
        }
        guard let leaf = chain.first else { throw RelayTLSError("the TLS certificate file \(certificateFile) holds no certificate") }
        pin = SHA256.hash(try leaf.extractPublicKey().toSPKIBytes())
        let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        context = try NIOSSLContext(configuration: configuration)
    }

    /// `DIR/tls-certificate.pem` and `DIR/tls-key.pem` (0600), made on first
    /// start: a P-256 key and a certificate for `localhost`, 127.0.0.1 and ::1
    /// valid for 20 years. Clients trust it through its pin, not its names.
    public static func selfSigned(in directory: String) throws -> RelayTLS {
        let certificateFile = directory + "/tls-certificate.pem", keyFile = directory + "/tls-key.pem"
        if !FileManager.default.fileExists(atPath: keyFile) {
            let key = P256.Signing.PrivateKey()
            let name = try DistinguishedName { CommonName("hush relay (self-signed)") }
            let now = Date()
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(20 * 365 * 86_400),
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                                             .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1])))])
                },
                issuerPrivateKey: .init(key))
            // The key first, created 0600 before a byte is written.
            guard FileManager.default.createFile(atPath: keyFile, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw RelayTLSError("cannot create \(keyFile)")
            }
            try Data(try certificate.serializeAsPEM().pemString.utf8).write(to: URL(fileURLWithPath: certificateFile))
        }
        return try RelayTLS(certificateFile: certificateFile, keyFile: keyFile)
    }
}

public struct RelayTLSError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
