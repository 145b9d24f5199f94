import Foundation
import Hummingbird
import HushRelayAPI

/// A deposit as the route reads it, from either form: JSON
/// (`{"requestID", "envelope": b64, "credential": b64?}`) or binary (raw
/// envelope body, request id and credential in headers; see `BinaryDeposit`).
struct DepositBody {
    var requestID: String
    var envelope: [UInt8]
    var credential: [UInt8]?
    /// The first-contact proof of work's nonce (`FirstContactWork`), if any.
    var work: [UInt8]?
    /// The sender's SHA-256 of the envelope (`EnvelopeDigest`), if sent.
    var digest: [UInt8]?

    // (HTTPField itself is not re-exported by Hummingbird; its Name is reachable as the element type of HTTPFields.)
    static let requestIDField = HTTPFields.Element.Name(BinaryDeposit.requestIDHeader)!
    static let credentialField = HTTPFields.Element.Name(BinaryDeposit.credentialHeader)!
    static let workField = HTTPFields.Element.Name(FirstContactWork.header)!
    static let digestField = HTTPFields.Element.Name(EnvelopeDigest.header)!

    /// Reads and checks either form: 413 beyond the size limits, 422 when
    /// malformed (bad request id, empty envelope, credential not base64).
    static func read(_ request: Request) async throws -> DepositBody {
        let body: DepositBody
        if request.headers[.contentType].map(isBinary) ?? false {
            body = try await readBinary(request)
        } else {
            let json = try await JSONBody.decode(DepositRequest.self, from: request, limit: RelayLimits.maxJSONBodyBytes)
            body = DepositBody(requestID: json.requestID, envelope: json.envelope.bytes, credential: json.credential?.bytes, work: json.work?.bytes,
                               digest: json.envelopeSHA256?.bytes)
        }
        do {
            try DepositRules.check(requestID: body.requestID, envelope: body.envelope, digest: body.digest, digestName: EnvelopeDigest.header)
        } catch {
            throw RelayError(error)
        }
        return body
    }

    private static func isBinary(_ contentType: String) -> Bool {
        contentType.utf8.starts(with: BinaryDeposit.contentType.utf8)
    }

    private static func readBinary(_ request: Request) async throws -> DepositBody {
        guard let requestID = request.headers[requestIDField] else {
            throw RelayError.malformed("missing header \(BinaryDeposit.requestIDHeader)")
        }
        var credential: [UInt8]?
        if let text = request.headers[credentialField] {
            guard text.utf8.count <= 128, let data = Data(base64Encoded: text) else {
                throw RelayError.malformed("\(BinaryDeposit.credentialHeader) is not base64")
            }
            credential = Array(data)
        }
        var work: [UInt8]?
        if let text = request.headers[workField] {
            guard text.utf8.count <= 24, let data = Data(base64Encoded: text) else {
                throw RelayError.malformed("\(FirstContactWork.header) is not base64")
            }
            work = Array(data)
        }
        var digest: [UInt8]?
        if let text = request.headers[digestField] {
            guard text.utf8.count <= 64, let data = Data(base64Encoded: text) else {
                throw RelayError.malformed("\(EnvelopeDigest.header) is not base64")
            }
            digest = Array(data)
        }
        let buffer: ByteBuffer
        do { buffer = try await JSONBody.collect(request, limit: RelayLimits.maxEnvelopeBytes) } catch RelayError.tooLarge {
            throw RelayError.tooLarge("the envelope")
        }
        return DepositBody(requestID: requestID, envelope: Array(buffer.readableBytesView), credential: credential, work: work, digest: digest)
    }
}
