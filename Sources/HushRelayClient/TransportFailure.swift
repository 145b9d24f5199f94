import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Why a request never got an answer, in words: what was tried, on which
/// relay, and what the system said ("POST http://relay:8080/v1/messages:
/// connection refused"), not the name of an error type ("IOError").
enum TransportFailure {
    static func describe(_ error: any Error, _ method: String, _ url: String) -> String {
        "\(method) \(url): \(reason(error))"
    }

    /// Whether the connection closed (or was reset) before any answer came:
    /// what a kept-alive connection the server closed for idleness, just as
    /// a request went out on it, looks like.
    static func closedBeforeAnswer(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError: return error == .remoteConnectionClosed
        case let error as ChannelError:
            switch error {
            case .ioOnClosedChannel, .alreadyClosed, .eof: return true
            default: return false
            }
        case let error as IOError: return [ECONNRESET, EPIPE].contains(error.errnoCode)
        case let error as NIOSSLError:
            if case .uncleanShutdown = error { return true }
            return false
        default: return false
        }
    }

    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout: return "no connection within the connect timeout (is the relay up, and the address right?)"
            case .readTimeout, .deadlineExceeded: return "no answer in time"
            case .remoteConnectionClosed: return "the relay closed the connection before answering"
            case .tlsHandshakeTimeout: return "the TLS handshake did not finish in time"
            default: return error.shortDescription.lowercased()
            }
        case let error as NIOConnectionError:
            // Every address the name resolved to failed: the last reason says why.
            if let last = error.connectionErrors.last { return "\(last.target): \(reason(last.error))" }
            if let dns = error.dnsAAAAError ?? error.dnsAError {
                // The resolver's own words ("Name or service not known"), not NIO's type name.
                let why = (dns as? SocketAddressError.UnknownHost).map { ": \($0.errorDescription.lowercased())" } ?? ""
                return "the name \(error.host) does not resolve\(why) (check the host name in the relay URL, and this machine's DNS)"
            }
            return "cannot connect to \(error.host):\(error.port)"
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return "no connection within the connect timeout"
            case .ioOnClosedChannel, .alreadyClosed, .eof: return "the connection closed before the answer came"
            default: return "\(error)"
            }
        case is CancellationError:
            return "cancelled"
        default:
            return "\(error)"
        }
    }
}
