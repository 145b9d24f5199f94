import Foundation
import HushSubprocess
import HushTesting
import Testing

/// What `hush relay serve --tls-self-signed` offers, asked with the openssl
/// command line against a real relay process: TLS 1.2 and 1.3 with AEAD
/// suites only, TLS 1.0/1.1 and CBC suites refused (the client is allowed
/// them with `@SECLEVEL=0`, so a refusal is the relay's), `tls.min-version
/// 1.3` refusing 1.2, and a certificate that openssl's verifier accepts as a
/// TLS server certificate once it is given as its own trust anchor.
@Suite(.serialized) struct TLSPolicyTests {
    @Test func oldVersionsAndCBCSuitesAreRefused() throws {
        let directory = try TemporaryDirectory()
        let relay = try Self.startRelay(data: directory.path + "/relay")
        defer { relay.process.stop() }

        #expect(try Self.handshake(relay.address, ["-tls1_2"]).accepted, "TLS 1.2 with the default suites must work")
        #expect(try Self.handshake(relay.address, ["-tls1_3"]).accepted, "TLS 1.3 must work")
        for old in ["-tls1", "-tls1_1"] {
            let answer = try Self.handshake(relay.address, [old, "-cipher", "DEFAULT@SECLEVEL=0"])
            #expect(!answer.accepted, "\(old) was accepted: \(answer.output)")
        }
        for suite in ["ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA", "ECDHE-ECDSA-AES128-SHA256", "ECDHE-ECDSA-AES256-SHA384"] {
            let answer = try Self.handshake(relay.address, ["-tls1_2", "-cipher", suite + "@SECLEVEL=0"])
            #expect(!answer.accepted, "the CBC suite \(suite) was accepted: \(answer.output)")
        }
        for suite in ["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305"] {
            #expect(try Self.handshake(relay.address, ["-tls1_2", "-cipher", suite]).accepted, "the AEAD suite \(suite) was refused")
        }
    }

    @Test func minimumVersionOneThreeRefusesOneTwo() throws {
        let directory = try TemporaryDirectory()
        let relay = try Self.startRelay(data: directory.path + "/relay", extra: ["HUSH_RELAY_TLS_MIN_VERSION": "1.3"])
        defer { relay.process.stop() }
        #expect(try Self.handshake(relay.address, ["-tls1_3"]).accepted)
        #expect(try !Self.handshake(relay.address, ["-tls1_2"]).accepted, "tls.min-version 1.3 still served TLS 1.2")
    }

    @Test func selfSignedCertificatePassesAStandardValidator() throws {
        let directory = try TemporaryDirectory()
        let relay = try Self.startRelay(data: directory.path + "/relay")
        let certificate = directory.path + "/relay/tls-certificate.pem"
        relay.process.stop()
        // Itself as the only trust anchor, strict X.509 checks, purpose TLS server, for the name it carries.
        let verified = try Self.run("/usr/bin/openssl", ["verify", "-x509_strict", "-purpose", "sslserver", "-verify_hostname", "localhost",
                                                          "-CAfile", certificate, certificate])
        #expect(verified.status == 0, "openssl verify refused the certificate: \(verified.output)")
        let text = try Self.run("/usr/bin/openssl", ["x509", "-in", certificate, "-noout", "-text"]).output
        for part in ["X509v3 Authority Key Identifier", "X509v3 Subject Key Identifier", "CA:FALSE", "TLS Web Server Authentication",
                     "DNS:localhost", "IP Address:127.0.0.1"] {
            #expect(text.contains(part), "the certificate lacks \(part)")
        }
        let dates = try Self.run("/usr/bin/openssl", ["x509", "-in", certificate, "-noout", "-startdate", "-enddate", "-dateopt", "iso_8601"]).output
        let parsed = dates.split(separator: "\n").compactMap { line -> Date? in
            guard let value = line.split(separator: "=", maxSplits: 1).last else { return nil }
            return ISO8601DateFormatter().date(from: String(value).replacingOccurrences(of: " ", with: "T"))
        }
        try #require(parsed.count == 2, "\(dates)")
        #expect(parsed[1].timeIntervalSince(parsed[0]) <= 398 * 86_400, "the certificate lives longer than 398 days: \(dates)")
    }

    /// A certificate made by an older relay (20 years) is replaced at the next
    /// start by one for the same key: the pin clients hold stays valid.
    @Test func aLongLivedCertificateIsRenewedWithTheSameKey() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/relay", certificate = data + "/tls-certificate.pem"
        let first = try Self.startRelay(data: data)
        first.process.stop()
        let pin = try Self.run("/usr/bin/openssl", ["x509", "-in", certificate, "-noout", "-pubkey"]).output
        let old = try Self.run("/usr/bin/openssl", ["req", "-x509", "-new", "-days", "7300", "-key", data + "/tls-key.pem", "-subj", "/CN=old",
                                                     "-out", certificate])
        try #require(old.status == 0, "\(old.output)")
        let second = try Self.startRelay(data: data)
        second.process.stop()
        let subject = try Self.run("/usr/bin/openssl", ["x509", "-in", certificate, "-noout", "-subject", "-checkend", String(398 * 86_400)])
        #expect(subject.output.contains("hush relay (self-signed)"), "not renewed: \(subject.output)")
        #expect(subject.status != 0, "the renewed certificate still lives longer than 398 days")
        #expect(try Self.run("/usr/bin/openssl", ["x509", "-in", certificate, "-noout", "-pubkey"]).output == pin, "the key changed")
    }

    /// Starts a relay serving TLS with a self-signed certificate on a free loopback port; returns it and `127.0.0.1:PORT`.
    static func startRelay(data: String, extra: [String: String] = [:]) throws -> (process: Subprocess, address: String) {
        let process = try ServeProcessTests.startHush(["relay", "serve", "--port", "0", "--tls-self-signed", "--data", data, "--log-level", "warning"],
                                                      environment: ProcessInfo.processInfo.environment.merging(extra) { $1 })
        guard let line = ServeProcessTests.waitForLine(process, prefix: "hush relay listening on https://") else {
            process.stop()
            throw TestFailure("the relay did not start")
        }
        return (process, String(line.dropFirst("hush relay listening on https://".count)))
    }

    /// One `openssl s_client` handshake with `options`; accepted when a cipher was negotiated.
    static func handshake(_ address: String, _ options: [String]) throws -> (accepted: Bool, output: String) {
        let answer = try run("/usr/bin/openssl", ["s_client", "-connect", address, "-servername", "localhost"] + options, input: "")
        let negotiated = answer.output.contains("Cipher is ") && !answer.output.contains("Cipher is (NONE)")
        return (answer.status == 0 && negotiated, answer.output)
    }

    static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        try CommandLineTool.run(executable, arguments, input: input)
    }
}
