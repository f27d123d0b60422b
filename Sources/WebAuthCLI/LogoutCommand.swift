import ArgumentParser
import Foundation
import WebAuthOAuth
import WebAuthTokenStore

/// `webauth logout`: revokes a profile's tokens at the provider and forgets them here.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke a profile's tokens at the provider and delete them from the store.",
        discussion: """
            When the provider has a revocation endpoint (RFC 7009), the refresh token and then \
            the access token are revoked there. The stored entry is deleted in any case, also \
            when revoking fails; the exit status is then 13 and the message says why, since the \
            tokens may stay valid at the provider until they expire. A provider without a \
            revocation endpoint is noted, and the exit status is 0.

            \(ExitStatus.helpText)
            """
    )

    @Option(help: ProfileOptions.help, completion: ProfileOptions.completion)
    var profile: String = ProfileOptions.defaultProfile

    @OptionGroup var storeOption: StoreOption

    @Flag(help: "Print the outcome as JSON on standard output.")
    var json = false

    func validate() throws {
        try ProfileOptions.validate(profile)
    }

    func run() async throws {
        let output = CommandOutput(json: json)
        let terminal = TerminalOutput()
        let signOut: TokenStores.SignOut
        do {
            signOut = try await storeOption.stores().signOut(profile: profile)
        } catch {
            let failure = CommandFailure.from(error, profile: profile, action: "logout")
            output.failure(failure, terminal: terminal)
            throw ExitCode(failure.status)
        }
        var revocationFailure: CommandFailure?
        switch signOut.revocation {
        case .revoked:
            terminal.success("Revoked the tokens at the provider and signed out of profile \"\(profile)\".")
        case .unsupported:
            terminal.note(
                "the provider has no revocation endpoint: the tokens were deleted here but stay valid at the "
                    + "provider until they expire.")
            terminal.success("Signed out of profile \"\(profile)\".")
        case .notPossible:
            terminal.note(
                "the entry does not name its client, so the tokens could not be revoked at the provider; "
                    + "they were deleted here.")
            terminal.success("Signed out of profile \"\(profile)\".")
        case .unreadable:
            terminal.note(
                "the stored entry could not be read, so nothing could be revoked at the provider; it was deleted "
                    + "here, and its tokens stay valid there until they expire.")
            terminal.success("Signed out of profile \"\(profile)\".")
        case .failed(let error):
            let failure = CommandFailure.from(error, profile: profile, action: "revocation")
            revocationFailure = failure
            terminal.error(
                "revoking the tokens at the provider failed: \(failure.message)",
                fix: "they were deleted here, but may stay valid at the provider until they expire")
        }
        if json {
            var object: [String: Any] = [
                "profile": profile, "deleted": true, "store": signOut.store.rawValue,
                "revocation": Self.name(of: signOut.revocation),
            ]
            if let revocationFailure {
                object["revocation_error"] = ["code": revocationFailure.code, "message": revocationFailure.message]
            }
            output.emit(object)
        }
        if revocationFailure != nil { throw ExitCode(ExitStatus.revocationFailed) }
    }

    /// The revocation's name in `--json` output.
    static func name(of revocation: TokenStores.Revocation) -> String {
        switch revocation {
        case .revoked: "revoked"
        case .unsupported: "unsupported"
        case .notPossible: "not_possible"
        case .unreadable: "unreadable"
        case .failed: "failed"
        }
    }
}
