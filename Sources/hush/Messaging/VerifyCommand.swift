import ArgumentParser
import Foundation
import HushKit
import HushTerminal

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Show the safety number with a contact, or check one they read out or you scanned.",
        discussion: """
            You and your contact see the same 60 digits (12 groups of 5). Compare them in person or \
            over a channel you trust; if they match, no one sits in the middle. --qr draws the \
            scannable form; --compare checks digits read out (spaces ignored) or the hex content of a \
            scanned code, and marks the contact verified when it matches. When the contact uses \
            several devices, their device list follows (read again from their directory at the relay \
            when it answers), with its fingerprint (30 digits) to compare with what `hush device \
            list` shows on their side: it changes whenever the set of their active devices changes (a device linked or revoked; a device linked and then revoked again leaves it as it was).

            Examples:
              hush verify bob
              hush verify bob --qr
              hush verify bob --compare "30035 44776 92869 …"
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's name.") var name: String
    @Flag(help: "Also draw the scannable form as a QR code.") var qr = false
    @Option(help: ArgumentHelp("The number your contact read out, or the hex of their scanned code.", valueName: "CODE"))
    var compare: String?

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let contact = try await Names(account: account).contact(name)
            // As the user named the contact, also when `contact:NAME` was typed.
            let name = contact.name
            if let compare {
                try SafetyNumberRule.check(compare)
                let matched: Bool
                do {
                    matched = try await account.compareSafetyNumber(with: contact.id, code: compare)
                } catch let error as HushError where error.kind == .invalidInput {
                    // What was typed is no safety number: a usage error, as the rule above says of others.
                    throw CommandError(.usage, error.reason + "; nothing was compared or changed")
                }
                if global.json {
                    try printJSON(["contact": name, "matches": matched, "verified": matched])
                } else if matched {
                    print(Presentation.style.good("The safety numbers match: \(name) is now verified."))
                } else {
                    printError("the safety numbers do NOT match: do not trust this session; someone may be in the middle, or the digits were misread")
                }
                if !matched { throw ExitCode(.safetyNumberMismatch) }
                return
            }
            let number = try await account.safetyNumber(with: contact.id)
            // The latest list is in the contact's directory at the relay; offline, the one held.
            let devices: DeviceListSummary?
            do throws(HushError) {
                devices = try await account.refreshDevices(ofContact: contact.id)
            } catch where error.kind == .relayUnavailable || error.kind == .notRegistered {
                devices = try await account.devices(ofContact: contact.id)
            } catch {
                printError("\(name)'s device directory at the relay holds a list that is refused (\(error.reason)); the list shown is the one held")
                devices = try await account.devices(ofContact: contact.id)
            }
            let scannable = number.scannableCode
            let hex = scannable.map { String(format: "%02x", $0) }.joined()
            if global.json {
                var object: [String: Any] = ["contact": name, "safetyNumber": number.groups.joined(separator: " "), "scannable": hex,
                                             "verification": contact.verification.rawValue]
                if let devices { object["devices"] = DeviceListCommand.json(devices) }
                try printJSON(object)
                return
            }
            if contact.verification == .changed {
                print(Presentation.style.bad("\(name)'s identity key CHANGED. This is the number for the new key; compare it before `hush contact accept \(name)`."))
            }
            print("Safety number with \(name) (\(contact.verification.rawValue)):")
            let groups = number.groups
            for row in stride(from: 0, to: groups.count, by: 4) {
                print("  " + groups[row..<min(row + 4, groups.count)].joined(separator: " "))
            }
            if qr {
                print(try QRCode(data: scannable).renderForTerminal())
                print("Scannable code (hex): \(hex)")
            }
            if let devices {
                print("\(name)'s devices (\(devices.devices.filter(\.isActive).count) active), fingerprint \(devices.fingerprint):")
                DeviceListCommand.printLines(devices.devices)
                print("Compare the fingerprint with what `hush device list` shows on \(name)'s side.")
            }
        }
    }
}
