/// A media type guessed from a file name's extension, for the pointer's hint
/// (docs/PROTOCOL.md §10.3). Receivers never trust it to decide how to open a file.
enum MediaType {
    static let byExtension: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "svg": "image/svg+xml", "pdf": "application/pdf", "txt": "text/plain", "md": "text/markdown",
        "json": "application/json", "zip": "application/zip", "gz": "application/gzip", "mp4": "video/mp4",
        "mov": "video/quicktime", "mp3": "audio/mpeg", "m4a": "audio/mp4", "ogg": "audio/ogg", "wav": "audio/wav", "ppm": "image/x-portable-pixmap",
    ]

    static func guess(fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: ".") else { return "application/octet-stream" }
        return byExtension[fileName[fileName.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
