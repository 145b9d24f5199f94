import AsyncHTTPClient
import Foundation
import HushRelayAPI
import NIOCore
import NIOSSL
import NIOHTTP1

/// A raw relay answer: status, headers that matter, body bytes.
public struct RelayRawResponse: Sendable {
    public var status: Int
    public var retryAfter: String?
    /// `Hush-Work-Bits` of a 428 `work_required` answer.
    public var workBits: Int? = nil
    public var body: [UInt8]

    /// Throws the typed error for any status outside 2xx.
    func throwIfError() throws(RelayClientError) {
        guard !(200..<300).contains(status) else { return }
        let detail = try? JSONDecoder().decode(RelayErrorBody.self, from: Data(body)).error
        throw .http(status: status, code: detail?.code ?? "unknown", message: detail?.message ?? "HTTP \(status)",
                    retryAfterSeconds: retryAfter.flatMap(Int.init))
    }
}

extension RelayClient {
    func call<Response: Decodable>(_ method: HTTPMethod, _ path: String, authenticated: Bool = false,
                                   as type: Response.Type) async throws(RelayClientError) -> Response {
        try decode(type, from: await send(method, path, authenticated: authenticated))
    }

    func call<Body: Encodable, Response: Decodable>(_ method: HTTPMethod, _ path: String, body: Body, authenticated: Bool = false,
                                                    as type: Response.Type) async throws(RelayClientError) -> Response {
        let data: Data
        do { data = try JSONEncoder().encode(body) } catch { throw .invalidResponse("cannot encode the request") }
        return try decode(type, from: await send(method, path, body: ByteBuffer(bytes: data), contentType: "application/json",
                                                 authenticated: authenticated))
    }

    func decode<Response: Decodable>(_ type: Response.Type, from raw: RelayRawResponse) throws(RelayClientError) -> Response {
        try raw.throwIfError()
        do { return try JSONDecoder().decode(type, from: Data(raw.body)) } catch {
            throw .invalidResponse("the \(Response.self) does not decode")
        }
    }

    /// Sends one request; any status comes back (tests use this for error paths).
    public func send(_ method: HTTPMethod, _ path: String, body: ByteBuffer? = nil, contentType: String? = nil,
                     authenticated: Bool = false, headers extra: [(String, String)] = [],
                     maxResponseBytes: Int = 4 * 1024 * 1024) async throws(RelayClientError) -> RelayRawResponse {
        let http = try await transport().http
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let body {
            request.body = .bytes(body)
            request.headers.add(name: "Content-Length", value: String(body.readableBytes))
        }
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        if authenticated { request.headers.add(name: "Authorization", value: "Bearer " + (try currentSession().token)) }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        do {
            let response = try await http.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: maxResponseBytes)
            return RelayRawResponse(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
                                    workBits: response.headers.first(name: FirstContactWork.bitsHeader).flatMap(Int.init),
                                    body: Array(bytes.readableBytesView))
        } catch is NIOSSLError where pin != nil {
            throw await pinnedHandshakeFailure()
        } catch is NIOSSLError {
            throw .transport("the TLS handshake failed: this system does not trust the relay's certificate (a relay with a self-signed key needs its pin: https://HOST:PORT#pin=PIN)")
        } catch {
            throw .transport(TransportFailure.describe(error, method.rawValue, baseURL + path))
        }
    }

    /// Why a handshake with a pinned relay failed, after its key matched the
    /// pin when it was first fetched: fetched again, a different key is a
    /// pin mismatch (the relay changed its key since); the same key with a
    /// chain of certificates means a CA issued it, and a pin stands in only
    /// for a self-signed key, whose certificate is its own root. Anything
    /// else stays a transport failure (retried later).
    private func pinnedHandshakeFailure() async -> RelayClientError {
        let failed = RelayClientError.transport("the TLS handshake with the relay failed")
        guard let pin, let origin = try? self.origin else { return failed }
        let presented: Int
        do {
            presented = try await PinnedRelayKey.certificate(host: origin.connectableHost, port: origin.port, pin: pin).presented
        } catch {
            return error
        }
        guard presented > 1 else { return failed }
        return .invalidRelayURL("the relay's key matches the #pin=, but its certificate was issued by a CA, and a pin stands in only for a "
                                + "self-signed key (hush relay serve --tls-self-signed): use the URL without #pin= and the system's trust store checks the certificate")
    }
}
