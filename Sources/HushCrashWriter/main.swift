// A test helper, not shipped: writes messages into a store in a loop of
// small transactions and prints the number of committed rows after each
// commit, until it is killed. The crash-consistency test SIGKILLs it mid-write
// and checks that every row it reported committed is intact.
//
// usage: HushCrashWriter DATABASE  (the hex key in HUSH_CRASH_WRITER_KEY)
import Glibc
import HushCrypto
import HushStore

let arguments = CommandLine.arguments
guard arguments.count == 2, let hexKey = getenv("HUSH_CRASH_WRITER_KEY"),
      let keyBytes = try? Hex.decode(String(cString: hexKey)) else {
    print("usage: HUSH_CRASH_WRITER_KEY=<64 hex digits> HushCrashWriter DATABASE")
    exit(2)
}
let key = SecureBytes(copying: keyBytes, storage: .guarded)
do {
    let store = try MessageStore(path: arguments[1], key: key)
    let conversation = try store.conversations.create(title: "crash", at: 0)
    var committed = 0
    while true {
        try store.write { store in
            for _ in 0..<20 {
                committed += 1
                try store.messages.insert(NewMessage(
                    conversationId: conversation, serverId: Int64(committed), clientMessageId: "crash-\(committed)",
                    direction: .incoming, sender: "writer", body: "row \(committed) " + String(repeating: "x", count: committed % 300),
                    status: .delivered, createdAt: Int64(committed)))
            }
        }
        print(committed)
        fflush(nil)   // every stream: stdout is a pipe, so not line-buffered
    }
} catch {
    print("HushCrashWriter: \(error)")
    exit(1)
}
