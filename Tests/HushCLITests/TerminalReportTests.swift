import HushKit
import Testing
@testable import hush

/// HushKit words its errors for any app; the command line adds the exit code
/// a script branches on and the `hush` command that helps (and only it does).
@Suite struct TerminalReportTests {
    @Test func aSubjectGetsTheCommandThatHelpsWithIt() {
        let unknown = HushError(.notFound, reason: "no contact named 'bob'", subject: .contact("bob"))
        #expect(unknown.terminalReport.status == .contactProblem)
        #expect(unknown.terminalReport.message.contains("`hush contact add bob ADDRESS`"))
        let changed = HushError(.identityChanged, reason: "changed", subject: .contact("bob"))
        #expect(changed.terminalReport.status == .identityChanged)
        #expect(changed.terminalReport.message.contains("`hush verify bob`") && changed.terminalReport.message.contains("`hush contact accept bob`"))
        let member = HushError(.identityChanged, reason: "changed", subject: .member("bob", group: "team"))
        #expect(member.terminalReport.status == .failure && member.terminalReport.message.contains("`hush group remove team bob`"))
        let notAdmin = HushError(.notAdmin, reason: "only an admin", subject: .group("team"))
        #expect(notAdmin.terminalReport.message.contains("`hush group info team`"))
        let damaged = HushError(.damagedFile, reason: "the stored copy of the attachment is damaged (digest)", subject: .attachment(AttachmentID(rawValue: 3)))
        #expect(damaged.terminalReport.message == "the stored copy of the attachment is damaged (digest); `hush fetch 3` downloads it again")
        #expect(HushError(.blocked, reason: "blocked", subject: .contact("dave")).terminalReport.message.contains("`hush requests accept dave`"))
        #expect(HushError(.notFound, reason: "no outbox message", subject: .queuedMessage("3fa9")).terminalReport.message.contains("`hush outbox`"))
    }

    @Test func kindsWithoutASubjectKeepHushKitsWordsAndTheirCodes() {
        let relay = HushError(.relayUnavailable, reason: "the relay could not be used", suggestion: "connection refused")
        #expect(relay.terminalReport.status == .relayUnavailable && relay.terminalReport.message == "the relay could not be used: connection refused")
        #expect(HushError(.notRegistered, reason: "r").terminalReport.status == .relayUnavailable)
        // The plain case gets the hint; a reason of its own (a linked device's home restored without its key) is kept.
        #expect(HushError(.notRegistered, reason: "this account has no relay").terminalReport.message.contains("hush register --relay URL"))
        let keyless = HushError(.notRegistered, reason: "this home was a linked device", suggestion: "link it again")
        #expect(keyless.terminalReport.message.contains("this home was a linked device") && keyless.terminalReport.message.contains("link it again"))
        #expect(HushError(.invalidContact, reason: "that is your own address").terminalReport == (.contactProblem, "that is your own address"))
        #expect(HushError(.notAccepted, reason: "a group message waits").terminalReport.message == "a group message waits (`hush requests`)")
        #expect(HushError(.other, reason: "something").terminalReport == (.failure, "something"))
        // 21 is for contacts: a missing archive or device is any other failure (it was 21).
        #expect(HushError(.notFound, reason: "there is no readable backup archive at x").terminalReport.status == .failure)
    }

    @Test func theCommandLinesOwnErrorsAndHushKitsShareOneReport() {
        #expect(ExitStatus.code(for: CommandError(.contactProblem, "x")) == ExitStatus.contactProblem.rawValue)
        #expect(ExitStatus.message(for: HushError(.notFound, reason: "r", subject: .group("team"))).contains("`hush group list`"))
    }
}
