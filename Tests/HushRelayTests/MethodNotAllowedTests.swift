import HTTPTypes
import HummingbirdTesting
import HushRelay
import HushRelayAPI
import Testing

/// A path the relay serves, asked with a method it does not serve there, is
/// 405 `method_not_allowed` with `Allow` (RFC 9110 §15.5.6), not 404 as for
/// an unknown path (docs/relay-openapi.yaml declares every method per path).
@Suite struct MethodNotAllowedTests {
    @Test func aKnownPathWithAnotherMethodIs405WithAllow() async throws {
        let relay = try TestRelay()
        let identity = String(repeating: "ab", count: 32), blob = String(repeating: "c", count: 64)
        let cases: [(String, HTTPRequest.Method, String)] = [
            ("/v1/health", .delete, "GET"),
            ("/v1/health", .post, "GET"),
            ("/v1/health", .head, "GET"),
            ("/v1/identities", .get, "POST"),
            ("/v1/mailboxes/\(identity)/messages", .put, "GET, POST"),
            ("/v1/mailboxes/\(identity)/ack", .get, "POST"),
            ("/v1/blobs", .get, "POST"),
            ("/v1/blobs/uploads", .get, "POST"),
            ("/v1/blobs/uploads/\(blob)", .post, "GET, PATCH"),
            ("/v1/blobs/\(blob)", .options, "DELETE, GET"),
            ("/v1/socket", .trace, "GET"),
        ]
        try await relay.application().test(.router) { client in
            for (path, method, allowed) in cases {
                let response = try await client.execute(uri: path, method: method)
                #expect(response.status == .methodNotAllowed, "\(method) \(path): \(response.status)")
                #expect(response.headers[.allow] == allowed, "\(method) \(path)")
                #expect(JSON.errorCode(response) == "method_not_allowed", "\(method) \(path)")
            }
            // An unknown path stays 404, and a served method is unaffected.
            let unknown = try await client.execute(uri: "/v1/nothing/here", method: .get)
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.allow] == nil)
            #expect(try await client.execute(uri: "/v1/health", method: .get).status == .ok)
        }
    }
}
