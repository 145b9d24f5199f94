import HushCrypto
import Foundation
import HushProtocol
import HushRelayAPI

/// The JSON bodies that cross the relay's API in either direction: what a
/// client sends (a hostile client against the relay) and what the relay
/// answers (a hostile relay against the client). The first input byte picks
/// the body; the rest is decoded as that body and then checked the way its
/// reader checks it.
enum RelayRequestBodies {
    static func check(_ input: [UInt8]) {
        guard let selector = input.first else { return }
        let json = Data(input.dropFirst())
        let decoder = JSONDecoder()
        switch selector % 13 {
        case 0:
            guard let request = try? decoder.decode(RegisterRequest.self, from: json) else { return }
            let identity = try? IdentityKey(rawRepresentation: request.identityKey.bytes)
            let message = RegistrationProof.message(for: request)
            _ = identity?.signingKey.isValidSignature(request.proof.bytes, for: message)
            for prekey in [request.signedPrekey, request.lastResortKEMPrekey] + request.oneTimePrekeys {
                if let prekey = try? prekey.prekey(), let identity { _ = try? prekey.verify(by: identity) }
            }
        case 1:
            guard let request = try? decoder.decode(UploadPrekeysRequest.self, from: json) else { return }
            for prekey in request.oneTimePrekeys { _ = try? prekey.prekey() }
        case 2:
            guard let request = try? decoder.decode(TokenRequest.self, from: json),
                  let identity = try? IdentityKey(rawRepresentation: request.identityKey.bytes),
                  let origin = try? RelayOrigin(url: request.origin ?? "") else { return }
            let message = AuthChallenge.message(identityKey: request.identityKey.bytes, nonce: request.nonce.bytes, origin: origin)
            _ = identity.signingKey.isValidSignature(request.signature.bytes, for: message)
        case 3:
            _ = try? decoder.decode(ChallengeRequest.self, from: json)
        case 4:
            // A deposit, single or fan-out (the same envelope and work rules; a fan-out's whole-request checks).
            if let fanOut = try? decoder.decode(FanOutRequest.self, from: json) {
                let accepted = (try? fanOut.check()) != nil
                let digest = EnvelopeDigest.of(fanOut.envelope.bytes)
                for recipient in fanOut.recipients.prefix(accepted ? RelayLimits.maxFanOutRecipients : 4) {
                    guard let work = recipient.work else { continue }
                    let prefix = FirstContactWork.prefix(mailbox: recipient.mailbox.bytes, requestID: fanOut.requestID, envelopeDigest: digest)
                    _ = FirstContactWork.isValid(nonce: work.bytes, prefix: prefix, bits: Int(selector))
                }
            }
            guard let request = try? decoder.decode(DepositRequest.self, from: json) else { return }
            _ = RequestIDRules.isValid(request.requestID)
            _ = try? SealedSender.checkShape(request.envelope.bytes)
            if let work = request.work {
                let prefix = FirstContactWork.prefix(mailbox: request.credential?.bytes ?? [], requestID: request.requestID,
                                                     envelope: request.envelope.bytes)
                _ = FirstContactWork.isValid(nonce: work.bytes, prefix: prefix, bits: Int(selector))
            }
        case 5:
            _ = try? decoder.decode(AckRequest.self, from: json)
        case 6:
            _ = try? decoder.decode(CredentialsRequest.self, from: json)
        case 7:
            // A socket frame: its type first, then the shape that type has.
            guard let kind = try? decoder.decode(SocketClientFrameType.self, from: json) else { return }
            if kind.type == "ack" { _ = try? decoder.decode(SocketAckFrame.self, from: json) }
            guard let frame = try? decoder.decode(SocketClientFrame.self, from: json) else { return }
            _ = try? SealedSender.checkShape(frame.envelope.bytes)
        case 8:
            _ = try? decoder.decode(SocketServerEvent.self, from: json)
        case 9:
            guard let page = try? decoder.decode(SyncResponse.self, from: json) else { return }
            for message in page.messages { _ = try? SealedSender.checkShape(message.envelope.bytes) }
        case 10:
            guard let dto = try? decoder.decode(PrekeyBundleDTO.self, from: json), let bundle = try? dto.bundle() else { return }
            _ = try? bundle.verify()
        case 12:
            // A directory write as the relay checks it, and a directory as a client reads it.
            if let write = try? decoder.decode(DirectoryWriteRequest.self, from: json),
               RelayLimits.isDirectoryRecordShaped(write.record.bytes),
               let name = try? Ed25519.PublicKey(rawRepresentation: LiveSession.shared.aliceDirectory.name.rawRepresentation) {
                _ = DeviceDirectory.isValidPut(signature: write.signature.bytes, name: name, counter: write.counter, record: write.record.bytes)
            }
            if let directory = try? decoder.decode(DirectoryDTO.self, from: json) {
                _ = try? LiveSession.shared.aliceDirectory.open(directory.record.bytes, counter: directory.counter)
            }
            _ = try? decoder.decode(DirectoryWriteResponse.self, from: json)
        default:
            _ = try? decoder.decode(RelayErrorBody.self, from: json)
            _ = try? decoder.decode(TokenResponse.self, from: json)
            _ = try? decoder.decode(DepositResponse.self, from: json)
            _ = try? decoder.decode(FanOutResponse.self, from: json)
        }
    }
}
