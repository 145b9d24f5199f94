import ArgumentParser
import Foundation
import HushKit
import HushTerminal

/// `hush device`: the account's devices (docs/PROTOCOL.md §20).
struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Link another device to this account, list the account's devices, or revoke one.",
        discussion: """
            A linked device has its own key at the relay and a copy of the account and its whole \
            history: it writes to contacts on sessions of its own, which their clients file under the \
            account, and contacts are told of every device linked or revoked (`hush verify` shows an \
            account's devices), so what they send reaches every device. What one device sends shows \
            on the others, groups and contacts are the same on every device, and large groups \
            (--large) stay on the original device (revoking it leaves the account in them with no \
            device that reads them).

            Examples:
              hush device link                  (then, on the new machine: hush init --link CODE)
              hush device list
              hush device revoke laptop         (by name, or by the start of its id)
            """,
        subcommands: [DeviceLinkCommand.self, DeviceListCommand.self, DeviceRevokeCommand.self])
}

struct DeviceLinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Print a one-time code that links a new device to this account.",
        discussion: """
            Prints the code (and with --qr a QR code of it), then waits up to 15 minutes for the new \
            device (`hush init --link CODE` there). When it answers, both screens show six digits: type \
            yes here only if they are the same. Then this device signs the account's new device list \
            and sends the account and its whole history, encrypted for the new device alone, through \
            the relay; then it sends the new list to every contact. The code is a secret: whoever uses it first and is confirmed gets the account. \
            Ctrl-C stops the link and tells the new device (an entry already published is revoked again); \
            a link that was killed is withdrawn by the next `hush device link`. \
            With --json the code is printed as {"code": …}, then {"device": …, "digits": …}, and the \
            answer (yes or no) is read from standard input. The account must not be open elsewhere \
            (stop `hush daemon` first).
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "What the account's device list calls this device, when the account has no list yet (1 to 64 bytes; default: the host name).")
    var name: String?

    @Option(help: ArgumentHelp("The relay the link goes through (default: the account's).", valueName: "URL"))
    var relay: String?

    @Flag(help: "Also draw the code as a QR code.") var qr = false

    func validate() throws {
        if let relay { try RelayURLRule.check(relay) }
    }

    func run() async throws {
        try await reportingErrors {
            let json = global.json, qr = qr
            let thisDevice = name ?? Self.hostName()
            let interruption = LinkInterruption()
            let (added, _) = try await global.unlocking { directory, keys in
                try await interruption.run {
                    try await HushAccount.linkDevice(from: directory, keys: keys, thisDeviceName: thisDevice, relayURL: relay,
                                                     earlierLinkWithdrawn: { earlier in Self.report(earlier, json: json) },
                                                     showCode: { code in
                        if json {
                            try? printJSON(["code": code])
                        } else {
                            print("Link code (one use, 15 minutes; a secret: show it only to the new device):")
                            print("  \(code)")
                            if qr, let drawn = try? QRCode(data: Array(code.utf8)).renderForTerminal() { print(drawn) }
                            print("On the new device: hush init --link \(code)")
                            print("Waiting for it…")
                        }
                        fflush(nil)
                    }) { name, digits in
                        let shown = UntrustedText.sanitized(name, keepingLineBreaks: false)
                        if json {
                            try? printJSON(["device": shown, "digits": digits])
                        } else {
                            print("The device “\(shown)” asks to join. It should show: \(digits.prefix(3)) \(digits.dropFirst(3))")
                            print("Same digits? Type yes to link it: ", terminator: "")
                        }
                        fflush(nil)
                        let answer = await interruption.readAnswer()
                        // Unanswered (stopped here or on the new device): the error that follows starts its own line.
                        if answer == nil, !json, !interruption.wasInterrupted { print(""); fflush(nil) }
                        return answer?.trimmingCharacters(in: .whitespaces).lowercased() == "yes"
                    }
                }
            }
            if json {
                try printJSON(["linked": UntrustedText.sanitized(added.name, keepingLineBreaks: false), "id": added.id])
            } else {
                print("Linked “\(UntrustedText.sanitized(added.name, keepingLineBreaks: false))”: it has the account and its history.")
                print("Contacts get the new device list from this device; once they hold it, what they send reaches every device of the account.")
            }
        }
    }

    /// What an earlier, interrupted link from this home left, and what was done about it.
    static func report(_ earlier: InterruptedLink, json: Bool) {
        let name = UntrustedText.sanitized(earlier.device.name, keepingLineBreaks: false)
        if json {
            var object: [String: Any] = ["interruptedLink": name, "id": earlier.device.id, "revokedAgain": earlier.revokedAgain]
            if let key = earlier.recoveryKey { object["recoveryKey"] = key.displayText }
            try? printJSON(object)
        } else if earlier.revokedAgain, let key = earlier.recoveryKey {
            print("An earlier link from this device was stopped after the account's device list named “\(name)” and before it had the history: “\(name)” was revoked again, since it had been handed the account key.")
            print("The account's recovery key changed for the backups that follow (the old one opens the archives made before). Write the new one down:")
            print("  \(key.displayText)")
        } else {
            print("An earlier link from this device was stopped after “\(name)” was sent the history's end: if that device says it was not linked, remove it with `hush device revoke \(earlier.device.id.prefix(8))`.")
        }
        fflush(nil)
    }

    /// This machine's name, cut to what a device name may be (64 bytes).
    static func hostName() -> String {
        var name = ProcessInfo.processInfo.hostName.filter { !$0.isWhitespace && $0.asciiValue.map { $0 >= 0x21 && $0 < 0x7F } ?? false }
        while name.utf8.count > 64 { name.removeLast() }
        return name.isEmpty ? "first device" : name
    }
}

struct DeviceListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the account's devices, as its signed device list names them.",
        discussion: """
            An account that never linked a device has no list yet, and prints none. The fingerprint \
            (30 digits) is what contacts see for this account's devices in `hush verify`: compare \
            them as you compare a safety number.
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let (list, _) = try await global.unlocking { directory, keys in try await HushAccount.deviceList(in: directory, keys: keys) }
            if global.json {
                try printJSON(list.map(Self.json) ?? ["devices": [Any]()])
                return
            }
            guard let list else {
                print("No device list yet: this account is one device. `hush device link` links another.")
                return
            }
            Self.printLines(list.devices)
            print("Fingerprint \(list.fingerprint) (list \(list.counter)): contacts see the same digits for this account's devices in `hush verify`.")
        }
    }

    /// One line per device: id, state, when linked, name (sanitised: a
    /// contact's device names are its words), and when revoked.
    static func printLines(_ devices: [LinkedDevice]) {
        let formatter = ISO8601DateFormatter()
        for device in devices {
            let name = UntrustedText.sanitized(device.name, keepingLineBreaks: false)
            print("  \(device.id.prefix(8))  \(device.isActive ? "active " : "revoked")  \(formatter.string(from: device.addedAt))  \(name)"
                  + (device.isThisDevice ? "  (this device)" : "")
                  + (device.revokedAt.map { "  (revoked \(formatter.string(from: $0))\(device.keptAccountKey ? "; it kept the account key, retired with it" : ""))" } ?? "")
                  + (device.linkInterrupted ? "  (its link was interrupted here: `hush device link` withdraws it, or `hush device revoke` it)" : ""))
        }
    }

    /// The `--json` form of a list (`hush device list`, and `hush verify` for a contact's).
    static func json(_ list: DeviceListSummary) -> [String: Any] {
        let formatter = ISO8601DateFormatter()
        return ["fingerprint": list.fingerprint, "counter": list.counter, "devices": list.devices.map { device -> [String: Any] in
            var object: [String: Any] = ["id": device.id, "name": UntrustedText.sanitized(device.name, keepingLineBreaks: false),
                                         "addedAt": formatter.string(from: device.addedAt), "active": device.isActive,
                                         "thisDevice": device.isThisDevice]
            if device.linkInterrupted { object["linkInterrupted"] = true }
            if let revokedAt = device.revokedAt { object["revokedAt"] = formatter.string(from: revokedAt) }
            if device.keptAccountKey { object["keptAccountKey"] = true }
            return object
        }]
    }
}

struct DeviceRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a device of this account (a lost or retired machine).",
        discussion: """
            Signs the account's next device list with that device revoked, publishes it at the \
            relay and sends it to every contact (their conversation says so, and `hush verify` \
            shows the new fingerprint), then replaces the account's recovery key (the revoked device holds the old one): \
            the new key is printed once, write it down; the account's other active devices receive \
            it on their next sync and seal their backups under it too; backups made before still \
            open with the old key only. A revoked device stays in every later list and can never be made active again. \
            Contacts refuse what the revoked device sends once the list reaches them; what it \
            already holds (the history up to its link, the account seed) cannot be taken back \
            (SECURITY.md). Every group the account administers gets a new key, and the admins of \
            the others are asked for one, so the revoked device reads nothing sent there afterwards \
            (once their clients have run). Revoke this device from another one. Any device may \
            be revoked, the account's first one too: it kept the account key at the relay, and \
            contacts then send nothing more to that key and refuse what comes from it (its large \
            groups are left without a device that reads them). The account must not be open \
            elsewhere (stop `hush daemon` first).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The device's name, or the start of its id (4 hex digits or more), as `hush device list` shows them.",
                                 valueName: "name-or-id"))
    var device: String

    @Option(help: ArgumentHelp("The relay the list is published at (default: the account's).", valueName: "URL"))
    var relay: String?

    func validate() throws {
        if let relay { try RelayURLRule.check(relay) }
        guard !device.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("no device named: give its name or the start of its id, as `hush device list` shows them")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let (revocation, _) = try await global.unlocking { directory, keys in
                try await HushAccount.revokeDevice(device, in: directory, keys: keys, relayURL: relay)
            }
            let revoked = revocation.device, recoveryKey = revocation.recoveryKey
            let name = UntrustedText.sanitized(revoked.name, keepingLineBreaks: false)
            let notRekeyed = revocation.groupsNotRekeyed.map { UntrustedText.sanitized($0, keepingLineBreaks: false) }
            if global.json {
                var fields: [String: Any] = ["revoked": name, "id": revoked.id, "recoveryKey": recoveryKey.displayText,
                                             "groupsNotRekeyed": notRekeyed]
                // Absent when it could not be done now (the report below says what follows).
                if let told = revocation.contactsTold { fields["contactsTold"] = told }
                if let rekeyed = revocation.groupsRekeyed { fields["groupsRekeyed"] = rekeyed }
                if let asked = revocation.adminsAsked { fields["adminsAsked"] = asked }
                try printJSON(fields)
                return
            }
            print("Revoked “\(name)” (\(revoked.id.prefix(8))): the account's device list now says so, at the relay too.")
            for line in Self.report(revocation, notRekeyed: notRekeyed) { print(line) }
            print("")
            print("New recovery key of the account: \(recoveryKey.displayText)")
            print("Write it down: it alone opens the backups made from now on, here and on the account's other active devices,")
            print("which receive it on their next sync (`hush backup key` there shows it once they have). Backups made before open")
            print("with the old key only, which the revoked device also holds. `hush backup key` shows the new one again.")
        }
    }

    /// What the contacts and groups were told, a line each; a group left
    /// with its old key is named, since the revoked device can read it.
    static func report(_ revocation: DeviceRevocation, notRekeyed: [String]) -> [String] {
        var lines: [String] = []
        switch revocation.contactsTold {
        case let told?: lines.append("Contacts told: \(told) (each client stops sealing to the device once the list reaches it).")
        case nil: lines.append("Contacts could not be told now: the list goes before the next thing sent to each of them.")
        }
        switch revocation.groupsRekeyed {
        case let rekeyed?: lines.append("Groups you administer given a new key: \(rekeyed).")
        case nil: lines.append("The groups you administer could not be given a new key now: change each (rename it, add or remove a member) to do so.")
        }
        switch revocation.adminsAsked {
        case let asked?: lines.append("Admins of your other groups asked for one: \(asked) (their clients give it once they hold the new list).")
        case nil: lines.append("The admins of your other groups could not be asked for a new key now: ask them to change each group.")
        }
        if !notRekeyed.isEmpty {
            lines.append("Not given a new key (the revoked device can read them until their next change): \(notRekeyed.joined(separator: ", ")).")
        }
        return lines
    }
}
