import Foundation

// `make bench` runs every suite; `make bench BENCH=crypto` runs one.
// Each suite measures Hush beside a baseline in the same run and prints ratios.

let suites: [(name: String, run: ([String]) async throws -> Void)] = [
    ("crypto", CryptoBenchmark.run),
    ("store", StoreBenchmark.run),
    ("protocol", ProtocolBenchmark.run),
    ("relay", RelayBenchmark.run),
    ("e2e", EndToEndBenchmark.run),
    ("attachments", AttachmentBenchmark.run),
    ("groups", GroupBenchmark.run),
    ("largegroups", LargeGroupBenchmark.run),
    ("drain", DrainBenchmark.run),
    ("daemon", DaemonBenchmark.run),
    ("backup", BackupBenchmark.run),
    ("link", LinkBenchmark.run),
    ("devices", DeviceDeliveryBenchmark.run),
    ("largeaccount", LargeAccountBenchmark.run),
]

let arguments = Array(CommandLine.arguments.dropFirst())
let selected = arguments.first.flatMap { name in suites.first { $0.name == name } }
if let name = arguments.first, selected == nil {
    print("unknown benchmark suite '\(name)'; known: \(suites.map(\.name).joined(separator: ", "))")
    exit(2)
}
for suite in suites where selected == nil || suite.name == selected?.name {
    print("== \(suite.name) ==")
    try await suite.run(Array(arguments.dropFirst()))
}
