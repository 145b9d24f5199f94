import AsyncHTTPClient
import Foundation

extension RelayBenchmark {
    /// Phase `tls`: the SQLCipher relay twice in one run, over plain HTTP and
    /// over TLS with its self-signed key (P-256, as `hush relay serve
    /// --tls-self-signed` makes it), under the same load: the in-process
    /// client (64 kept-alive connections, health then 1 KiB deposits), then
    /// wrk when it is installed. Prints relay CPU per request for each and the
    /// TLS / plain ratio: what an operator pays for serving TLS itself.
    static func tlsCost(requests: Int, concurrency: Int, wrkSeconds: Int, wrkConnections: Int) async throws {
        let plainRelay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { plainRelay.stop() }
        let tlsRelay = try RelayBench.ChildRelay(driver: "sqlcipher", tls: true)
        defer { tlsRelay.stop() }
        let plainHTTP = RelayBench.makeHTTPClient(connections: concurrency)
        let tlsHTTP = RelayBench.makeHTTPClient(connections: concurrency, tls: try RelayBench.trustingOnly(tlsRelay.certificateFile))
        do {
            try await compare(requests: requests, concurrency: concurrency, wrkSeconds: wrkSeconds, wrkConnections: wrkConnections,
                              plain: (plainRelay, plainHTTP), tls: (tlsRelay, tlsHTTP))
        } catch {
            try? await plainHTTP.shutdown()
            try? await tlsHTTP.shutdown()
            throw error
        }
        try await plainHTTP.shutdown()
        try await tlsHTTP.shutdown()
    }

    private static func compare(requests: Int, concurrency: Int, wrkSeconds: Int, wrkConnections: Int,
                                plain: (relay: RelayBench.ChildRelay, http: HTTPClient),
                                tls: (relay: RelayBench.ChildRelay, http: HTTPClient)) async throws {
        let (plainRelay, plainHTTP) = plain, (tlsRelay, tlsHTTP) = tls
        let plain = try await throughput(label: "plain http", relays: [plainRelay], requests: requests, concurrency: concurrency, http: plainHTTP)
        let tls = try await throughput(label: "tls", relays: [tlsRelay], requests: requests, concurrency: concurrency, http: tlsHTTP)
        print("tls beside plain http, in-process client: \(RelayBench.format(tls.relayMicros / plain.relayMicros, 2))× the relay CPU "
              + "per deposit (\(RelayBench.format(tls.relayMicros, 1)) against \(RelayBench.format(plain.relayMicros, 1)) µs, "
              + "+\(RelayBench.format(tls.relayMicros - plain.relayMicros, 1)) µs), \(RelayBench.format(tls.rate / plain.rate, 2))× the rate")
        guard WrkLoad.executable != nil else {
            print("tls [wrk]: skipped, wrk is not installed")
            return
        }
        let plainWrk = try await wrkLoad(label: "plain http", relay: plainRelay, healthSeconds: wrkSeconds, depositSeconds: wrkSeconds, connections: wrkConnections, http: plainHTTP)
        let tlsWrk = try await wrkLoad(label: "tls", relay: tlsRelay, healthSeconds: wrkSeconds, depositSeconds: wrkSeconds, connections: wrkConnections, http: tlsHTTP)
        print("tls beside plain http, wrk: \(RelayBench.format(tlsWrk.depositMicros / plainWrk.depositMicros, 2))× the relay CPU per deposit "
              + "(+\(RelayBench.format(tlsWrk.depositMicros - plainWrk.depositMicros, 1)) µs), "
              + "\(RelayBench.format(tlsWrk.healthMicros / plainWrk.healthMicros, 2))× per health request "
              + "(+\(RelayBench.format(tlsWrk.healthMicros - plainWrk.healthMicros, 1)) µs)")
    }
}
