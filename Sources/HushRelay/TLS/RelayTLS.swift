import Crypto
import Foundation
import Glibc
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

    /// The TLS versions served: 1.2 and 1.3 (the default), or 1.3 alone.
    /// TLS 1.0 and 1.1 are never served (RFC 8996).
    public enum MinimumVersion: String, Sendable, CaseIterable {
        case tls12 = "1.2", tls13 = "1.3"
    }

    /// The TLS 1.2 cipher suites served: ECDHE key exchange with an AEAD
    /// cipher only (Mozilla's "intermediate" list without DHE, which
    /// BoringSSL lacks): no CBC, no SHA-1 MAC, no static RSA key exchange.
    /// TLS 1.3 suites are AEAD by definition and not configurable in BoringSSL.
    public static let tls12CipherSuites = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ]

    public init(certificateFile: String, keyFile: String, minimumVersion: MinimumVersion = .tls12) throws {
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
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = minimumVersion == .tls13 ? .tlsv13 : .tlsv12
        configuration.cipherSuites = Self.tls12CipherSuites.joined(separator: ":")
        context = try NIOSSLContext(configuration: configuration)
    }

    /// `DIR/tls-certificate.pem` and `DIR/tls-key.pem` (0600), made on first
    /// start: a P-256 key and a certificate for `localhost`, 127.0.0.1 and ::1.
    /// Clients trust it through its key pin, not its names, so the
    /// certificate is renewed with the same key (the same pin) at a start
    /// that finds it within `renewalSeconds` of its end (or made by an older
    /// relay without the extensions below).
    public static func selfSigned(in directory: String, minimumVersion: MinimumVersion = .tls12, now: Date = Date()) throws -> RelayTLS {
        let certificateFile = directory + "/tls-certificate.pem", keyFile = directory + "/tls-key.pem"
        if !FileManager.default.fileExists(atPath: keyFile) {
            let key = P256.Signing.PrivateKey()
            // The key first, created 0600 before a byte is written.
            guard FileManager.default.createFile(atPath: keyFile, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw RelayTLSError("cannot create \(keyFile)")
            }
            try writeSelfSignedCertificate(key: key, to: certificateFile, now: now)
        } else if try needsRenewal(certificateFile, now: now) {
            let key: P256.Signing.PrivateKey
            do { key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: keyFile, encoding: .utf8)) } catch {
                throw RelayTLSError("cannot read the TLS private key \(keyFile) (a P-256 key in PEM expected)")
            }
            try writeSelfSignedCertificate(key: key, to: certificateFile, now: now)
        }
        return try RelayTLS(certificateFile: certificateFile, keyFile: keyFile, minimumVersion: minimumVersion)
    }

    /// How long a self-signed certificate is valid: 397 days, the longest a
    /// public CA may issue (CA/Browser Forum), so that validators and scanners
    /// that apply that rule accept it apart from its trust anchor.
    static let lifetimeSeconds: TimeInterval = 397 * 86_400
    /// A start within this much of the end renews the certificate.
    static let renewalSeconds: TimeInterval = 30 * 86_400

    /// Whether the certificate file is missing, near its end, or lacks the
    /// key identifiers (made by a relay before they were added).
    private static func needsRenewal(_ certificateFile: String, now: Date) throws -> Bool {
        guard let pem = try? String(contentsOfFile: certificateFile, encoding: .utf8) else { return true }
        let certificate: Certificate
        do { certificate = try Certificate(pemEncoded: pem) } catch {
            throw RelayTLSError("cannot read the TLS certificate \(certificateFile) (PEM expected): remove it and the relay makes a new one with the same key")
        }
        let identified = (try? certificate.extensions.authorityKeyIdentifier) != nil && (try? certificate.extensions.subjectKeyIdentifier) != nil
        return !identified || certificate.notValidAfter.timeIntervalSince(now) < renewalSeconds
            || certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore) > lifetimeSeconds + 86_400
    }

    /// A self-signed end-entity certificate for `key` (RFC 5280): not a CA,
    /// for server authentication only, with subject and authority key
    /// identifiers (the same: it signs itself) and the loopback names;
    /// written through a temporary file and a rename. No key usage extension:
    /// it is optional for an end entity, and BoringSSL (the pinned client's
    /// verifier, which trusts this very certificate as its root) refuses a
    /// self-issued certificate whose key usage lacks keyCertSign, which
    /// RFC 5280 allows only to a CA.
    private static func writeSelfSignedCertificate(key: P256.Signing.PrivateKey, to certificateFile: String, now: Date) throws {
        let name = try DistinguishedName { CommonName("hush relay (self-signed)") }
        let publicKey = Certificate.PublicKey(key.publicKey)
        let keyIdentifier = SubjectKeyIdentifier(hash: publicKey)
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(lifetimeSeconds - 3_600),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.serverAuth])
                keyIdentifier
                AuthorityKeyIdentifier(keyIdentifier: keyIdentifier.keyIdentifier)
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                                         .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1])))])
            },
            issuerPrivateKey: .init(key))
        let temporary = certificateFile + ".new"
        try Data(try certificate.serializeAsPEM().pemString.utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, certificateFile) == 0 else { throw RelayTLSError("cannot replace \(certificateFile)") }
    }
}

public struct RelayTLSError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
