import HushAudit
import HushCrypto
import HushMessenger
import HushStore

// The lower floors' types a front end names in its own signatures. Aliasing
// them here lets a front end import HushClient alone; the client decides
// which of the floors' types are part of its surface.

public typealias StoredMessage = HushStore.StoredMessage
public typealias MessageStatus = HushStore.MessageStatus
public typealias DoctorReport = HushStore.DoctorReport
public typealias MessengerEvent = HushMessenger.MessengerEvent
public typealias CanaryScanner = HushAudit.CanaryScanner
/// Hex for keys and scannable codes shown to people.
public typealias Hex = HushCrypto.Hex
public typealias VerificationState = HushStore.VerificationState
