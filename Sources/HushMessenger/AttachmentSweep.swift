import HushStore

/// Keeps the data directory's attachment files to those the store still has.
struct AttachmentSweep {
    private let dependencies: MessengerDependencies
    private let files: AttachmentFiles?

    init(_ dependencies: MessengerDependencies, files: AttachmentFiles?) {
        self.dependencies = dependencies
        self.files = files
    }

    /// Removes blob files whose attachment is gone (deleted with its
    /// conversation or contact, or never committed), and sealing files whose
    /// process is gone. Under the write lock: another process adopts a sealed
    /// file inside its write transaction, before its row is visible here, and
    /// must not lose the file to this sweep. When the rows cannot be read
    /// (locked past the busy timeout, a damaged database), nothing is removed:
    /// an empty set of ids would have meant every file.
    func sweep() {
        guard let files else { return }
        try? dependencies.store.write { store in
            files.sweep(keeping: try store.attachments.allIds(), isAlive: TransferHolder.isAlive)
        }
    }
}
