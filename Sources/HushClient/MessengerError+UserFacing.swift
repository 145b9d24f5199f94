import HushMessenger

extension MessengerError: UserFacingError {
    public var exitCode: Int32 {
        let status: ExitStatus
        switch self {
        case .identityChanged: status = .identityChanged
        case .unknownContact, .contactExists, .nothingToAccept, .invalidAddress, .ownAddress,
             .requestNotAccepted, .contactBlocked, .noRequest, .unknownGroup, .unknownConversation, .ambiguousName: status = .contactProblem
        case .relay, .notRegistered: status = .relayUnavailable
        case .messageTooLong, .protocolFailure, .missingLocalState, .awaitingGroupKey, .awaitingAcceptance, .unknownMessage, .unknownAttachment,
             .attachmentUnavailable, .attachmentRejected, .groupRefused: status = .failure
        }
        return status.rawValue
    }
}
