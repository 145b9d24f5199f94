/// Where the current public call (`sendFile`, `fetchAttachment`) wants
/// attachment progress reported, shared by the parts that move files: a
/// file's upload runs in the flush that `sendFile` starts.
final class AttachmentProgressReporter {
    var report: (@Sendable (AttachmentProgress) -> Void)?
}
