import Foundation
import Hummingbird
import NIOCore

/// Reading and writing JSON bodies with the relay's limits and error codes.
enum JSONBody {
    /// Collects at most `limit` bytes (413 beyond; a declared Content-Length
    /// over the limit is refused before reading) and decodes `T` (422 on failure).
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        let buffer = try await collect(request, limit: limit)
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch {
            throw RelayError.malformed(describe(error))
        }
    }

    static func collect(_ request: Request, limit: Int) async throws -> ByteBuffer {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw RelayError.tooLarge("the request body")
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw RelayError.tooLarge("the request body")
        }
    }

    /// Names the offending field without echoing any value.
    static func describe(_ error: any Error) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty ? "body" : codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case let DecodingError.keyNotFound(key, context): return "missing field \(path(context.codingPath + [key]))"
        case let DecodingError.typeMismatch(_, context): return "wrong type at \(path(context.codingPath))"
        case let DecodingError.valueNotFound(_, context): return "missing value at \(path(context.codingPath))"
        case let DecodingError.dataCorrupted(context): return "invalid value at \(path(context.codingPath))"
        default: return "the body is not valid JSON"
        }
    }

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try JSONEncoder().encode(value)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
