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
    func call<Response: Decodable>(_ method: HTTPMethod, _ path: String, authenticated: Bool = false, repeatable: Bool? = nil,
                                   as type: Response.Type) async throws(RelayClientError) -> Response {
        try decode(type, from: await send(method, path, authenticated: authenticated, repeatable: repeatable))
    }

    func call<Body: Encodable, Response: Decodable>(_ method: HTTPMethod, _ path: String, body: Body, authenticated: Bool = false,
                                                    repeatable: Bool? = nil, as type: Response.Type) async throws(RelayClientError) -> Response {
        let data: Data
        do { data = try JSONEncoder().encode(body) } catch { throw .invalidResponse("cannot encode the request") }
        return try decode(type, from: await send(method, path, body: ByteBuffer(bytes: data), contentType: "application/json",
                                                 authenticated: authenticated, repeatable: repeatable))
    }

    func decode<Response: Decodable>(_ type: Response.Type, from raw: RelayRawResponse) throws(RelayClientError) -> Response {
        try raw.throwIfError()
        do { return try JSONDecoder().decode(type, from: Data(raw.body)) } catch {
            throw .invalidResponse("the \(Response.self) does not decode")
        }
    }

    /// Sends one request; any status comes back (tests use this for error paths).
    ///
    /// A request whose connection closed before any answer came is sent once
    /// more when repeating it is harmless (`repeatable`; by default every GET
    /// but a bundle's): a kept-alive connection that the relay closed for
    /// idleness just as the request went out is the usual cause, and the HTTP
    /// client does not retry it (docs/RELAY-API.md, "Repeating a request").
    ///
    /// A 429 whose `Retry-After` is short (`longestWaitInPlace`) is waited
    /// out and the request sent again, up to `waitsInPlace` times: the relay
    /// refuses such a request whole, before it acts, so the repeat is
    /// harmless whatever the method, and a burst of logins from one address
    /// (a script, a link, several devices on one machine) goes through a
    /// second later instead of failing. A longer wait comes back as the 429,
    /// for the caller's own schedule (the outbox's backoff, say).
    public func send(_ method: HTTPMethod, _ path: String, body: ByteBuffer? = nil, contentType: String? = nil,
                     authenticated: Bool = false, headers extra: [(String, String)] = [], repeatable: Bool? = nil,
                     maxResponseBytes: Int = 4 * 1024 * 1024) async throws(RelayClientError) -> RelayRawResponse {
        var mayRepeat = repeatable ?? (method == .GET)   // once, after a connection closed unanswered
        var waited = 0
        while true {
            do {
                let response = try await sendOnce(method, path, body: body, contentType: contentType, authenticated: authenticated,
                                                  headers: extra, maxResponseBytes: maxResponseBytes)
                guard waited < Self.waitsInPlace, let seconds = Self.shortRateLimitWait(response) else { return response }
                waited += 1
                do { try await Task.sleep(for: .seconds(seconds)) } catch { return response }   // cancelled: the 429 as it came
            } catch {
                switch error {
                case let .closedBeforeAnswer(failure):
                    guard mayRepeat else { throw failure }
                    mayRepeat = false
                case let .failed(failure): throw failure
                }
            }
        }
    }

    /// The longest `Retry-After` of a 429 that `send` waits out in place, in seconds.
    static let longestWaitInPlace = 2
    /// How many 429s one `send` waits out before it returns one.
    static let waitsInPlace = 3

    /// The wait a 429 asks for when it is short enough to wait out in place (at least 1 s).
    static func shortRateLimitWait(_ response: RelayRawResponse) -> Int? {
        guard response.status == 429, let seconds = response.retryAfter.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
              seconds <= longestWaitInPlace else { return nil }
        return max(1, seconds)
    }

    /// Why one attempt failed: the connection closed before any answer came
    /// (which `send` may repeat), or anything else.
    private enum AttemptFailure: Error {
        case closedBeforeAnswer(RelayClientError)
        case failed(RelayClientError)
    }

    private func sendOnce(_ method: HTTPMethod, _ path: String, body: ByteBuffer?, contentType: String?, authenticated: Bool,
                          headers extra: [(String, String)], maxResponseBytes: Int) async throws(AttemptFailure) -> RelayRawResponse {
        let http: HTTPClient
        var request = HTTPClientRequest(url: baseURL + path)
        do {
            http = try await transport().http
            if authenticated { request.headers.add(name: "Authorization", value: "Bearer " + (try currentSession().token)) }
        } catch {
            throw .failed(error)
        }
        request.method = method
        if let body {
            request.body = .bytes(body)
            request.headers.add(name: "Content-Length", value: String(body.readableBytes))
        }
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        do {
            let response = try await http.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: maxResponseBytes)
            return RelayRawResponse(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
                                    workBits: response.headers.first(name: FirstContactWork.bitsHeader).flatMap(Int.init),
                                    body: Array(bytes.readableBytesView))
        } catch where TransportFailure.closedBeforeAnswer(error) {
            throw .closedBeforeAnswer(.transport(TransportFailure.describe(error, method.rawValue, baseURL + path)))
        } catch is NIOSSLError where pin != nil {
            throw .failed(await pinnedHandshakeFailure())
        } catch is NIOSSLError {
            throw .failed(.transport("the TLS handshake failed: this system does not trust the relay's certificate (a relay with a self-signed key needs its pin: https://HOST:PORT#pin=PIN)"))
        } catch {
            throw .failed(.transport(TransportFailure.describe(error, method.rawValue, baseURL + path)))
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
