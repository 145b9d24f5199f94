import HushCrypto
import HushProtocol
import HushRelayAPI
import Hummingbird

/// Accounts' device directories (docs/PROTOCOL.md §20.9): `PUT` and `GET
/// /v1/directory/{name}`, where the name is a blinded Ed25519 key the relay
/// cannot link to an address. No bearer token: a write is authorised by its
/// signature under the name (only the account's devices can make one), a
/// read by knowing the name (only who knows the address can compute it).
enum DirectoryRoutes {
    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.put("/v1/directory/{name}") { request, context in
            // A write costs a signature check and a synced commit: the stricter bucket.
            try core.limit(core.limits.authPerAddress, context.remoteAddress)
            let name = try core.identity(fromPath: context, name: "name")
            let body = try await JSONBody.decode(DirectoryWriteRequest.self, from: request, limit: RelayLimits.maxDirectoryBodyBytes)
            guard (1...UInt64(Int64.max)).contains(body.counter) else {
                throw RelayError.malformed("counter must be 1 … \(Int64.max)")
            }
            let record = body.record.bytes
            guard RelayLimits.isDirectoryRecordShaped(record) else {
                throw RelayError.malformed("record must be a directory record: version 1, \(RelayLimits.minDirectoryRecordBytes) bytes plus whole KiB, "
                                           + "at most \(RelayLimits.maxDirectoryRecordBytes)")
            }
            guard DeviceDirectory.isValidPut(signature: body.signature.bytes, name: try Ed25519.PublicKey(rawRepresentation: name),
                                             counter: body.counter, record: record) else {
                throw RelayError.invalidSignature("directory write (it must be signed under the name in the path)")
            }
            let write = try await core.storage.directories.writeDirectory(name: name, counter: body.counter, record: record, now: core.now)
            core.logger.info("directory written", metadata: ["result": "\(write.name)", "bytes": "\(record.count)"])
            return try JSONBody.response(DirectoryWriteResponse(result: write.name, counter: body.counter),
                                         status: write == .created ? .created : .ok)
        }

        router.get("/v1/directory/{name}") { _, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let name = try core.identity(fromPath: context, name: "name")
            guard let held = try await core.storage.directories.directory(name: name) else { throw RelayError.notFound("directory") }
            return try JSONBody.response(DirectoryDTO(record: held.record, counter: held.counter))
        }
    }
}
