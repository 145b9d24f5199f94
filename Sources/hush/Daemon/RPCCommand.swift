import ArgumentParser
import Foundation
import HushDaemon

struct RPCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc",
        abstract: "Call a method of the running daemon's local API and print its result as JSON.",
        discussion: """
            PARAMS is a JSON object (named parameters). Notifications a method streams (events, a \
            command's output) are printed one per line before the result; `events.subscribe` streams until \
            interrupted.

            Examples:
              hush rpc rpc.discover
              hush rpc daemon.status
              hush rpc messages.send '{"to": "bob", "text": "hi"}'
              hush rpc cli.run '{"argv": ["history", "bob", "--json"], "capture": true}'
              hush rpc events.subscribe
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The method's name (`hush rpc rpc.discover` lists them).") var method: String
    @Argument(help: "Its parameters, a JSON object (default {}).") var params: String?

    func run() async throws {
        try await reportingErrors {
            let parameters: JSONValue
            do {
                parameters = try JSONValue(parsing: Data((params ?? "{}").utf8))
            } catch {
                throw CommandError(.usage, "PARAMS is not JSON: give a JSON object, e.g. '{\"to\": \"bob\", \"text\": \"hi\"}'")
            }
            guard case .object = parameters else { throw CommandError(.usage, "PARAMS must be a JSON object (named parameters)") }
            let home = try global.homeDirectory()
            guard let connection = try DaemonForwarding.answeringConnection(home: home) else {
                throw CommandError(.failure, "no daemon runs for \(home): start one with `hush daemon`")
            }
            do {
                let result = try connection.call(method, parameters) { name, notification in
                    print(JSONValue.object(["method": .string(name), "params": notification]).description)
                    fflush(nil)
                }
                print(result.description)
                fflush(nil)
                // A subscription goes on after its answer: print what it streams until the daemon or the user ends it.
                if method == "events.subscribe" {
                    while let message = try connection.receive() {
                        print(message.description)
                        fflush(nil)
                    }
                }
            } catch let error as RPCError {
                throw CommandError(ExitStatus(rawValue: Int32(clamping: error.code)) ?? .failure, error.message)
            }
        }
    }
}
