import HushClient
import HushKit

// TEMPORARY (branch kit-cli only): the lifecycle half words these.
extension HushError {
    var lifecycleReport: (status: ExitStatus, message: String)? { nil }
}
