import ArgumentParser
import Glibc
import HushDatabase
import HushKeystore
import HushMessenger
import HushStore

/// The exit codes of `hush`, one per kind of failure a script may want to
/// tell apart. README.md lists them; keep the two in step.
enum ExitStatus: Int32 {
    case failure = 1
    case noIdentity = 10
    case wrongPassphrase = 11
    case keystoreDamaged = 12
    case keystoreTooNew = 13
    case badPermissions = 14
    case identityExists = 15
    case passphraseUnavailable = 16
    case databaseUnusable = 17
    case doctorFoundProblems = 18
    /// A contact's identity key changed: sending is blocked until accepted.
    case identityChanged = 20
    /// No such contact, or a contact/address problem the user must fix.
    case contactProblem = 21
    /// The relay could not be reached or refused the request.
    case relayUnavailable = 22
    /// A safety number did not match (`hush verify --compare`).
    case safetyNumberMismatch = 23
    /// Some envelopes could not be decrypted and were set aside.
    case quarantined = 24
    /// The message is safe in the outbox but the relay could not be reached yet.
    case queued = 25
    /// Bad command-line usage (ArgumentParser's own code for validation errors).
    case usage = 64

    static func of(_ error: any Error) -> ExitStatus {
        switch error {
        case let error as KeystoreError:
            switch error {
            case .wrongPassphrase: return .wrongPassphrase
            case .damaged: return .keystoreDamaged
            case .newerVersion: return .keystoreTooNew
            case .noIdentity: return .noIdentity
            case .identityExists: return .identityExists
            case .badPermissions, .wrongOwner: return .badPermissions
            case .passphraseUnavailable, .passphraseMismatch: return .passphraseUnavailable
            case .unknownCost, .io: return .failure
            }
        case is DatabaseError:
            return .databaseUnusable
        case let error as StoreError:
            if case .databaseMissing = error { return .databaseUnusable }
            return .failure
        case is ValidationError:
            // Thrown from run() (e.g. an empty message on stdin): still a usage error.
            return .usage
        case let error as MessengerError:
            switch error {
            case .identityChanged: return .identityChanged
            case .unknownContact, .contactExists, .nothingToAccept, .invalidAddress, .ownAddress,
                 .requestNotAccepted, .contactBlocked, .noRequest: return .contactProblem
            case .relay, .notRegistered: return .relayUnavailable
            case .messageTooLong, .protocolFailure, .missingLocalState, .unknownMessage: return .failure
            }
        default:
            return .failure
        }
    }
}

/// Runs a command body: any error is printed as one clear line on stderr
/// and turned into its exit code.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError(String(describing: error))
        throw ExitCode(ExitStatus.of(error).rawValue)
    }
}

/// The async form of `reportingErrors`, for commands that talk to the relay.
func reportingErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError(String(describing: error))
        throw ExitCode(ExitStatus.of(error).rawValue)
    }
}

func printError(_ message: String) {
    let line = "hush: error: \(message)\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}
