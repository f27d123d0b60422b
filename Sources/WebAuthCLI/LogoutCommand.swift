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

    /// What happened at the provider.
    enum Revocation: String, Sendable {
        /// Both tokens were revoked.
        case revoked
        /// The provider has no revocation endpoint.
        case unsupported
        /// The entry does not say which client and provider issued the tokens.
        case notPossible = "not_possible"
        /// Revoking failed.
        case failed
        /// The stored entry could not be read, so there was nothing to revoke with.
        case unreadable
    }

    func run() async throws {
        let output = CommandOutput(json: json)
        let terminal = TerminalOutput()
        let stores = TokenStores(selection: storeOption.selection)
        var revocation = Revocation.failed
        var revocationFailure: CommandFailure?
        let kind: TokenStoreKind
        do {
            guard let (store, _) = try await stores.locate(profile: profile) else {
                throw CommandFailure.notSignedIn(profile: profile)
            }
            kind = store.kind
            let profile = profile
            // Revoke what is stored under the lock, so a refresh in another process cannot
            // slip a new refresh token in between.
            var outcome: (Revocation, CommandFailure?) = (.failed, nil)
            do {
                try await store.update(profile: profile) { current in
                    guard let current else { throw CommandFailure.notSignedIn(profile: profile) }
                    outcome = await Self.revoke(current, profile: profile)
                    return nil
                }
            } catch let error as TokenStoreError where error.code == .corrupt {
                // An entry nobody can read must still be removable: what it held is lost, so
                // nothing can be revoked, but the file (and its refresh token) goes.
                guard try await store.delete(profile: profile) else { throw error }
                outcome = (.unreadable, nil)
            }
            (revocation, revocationFailure) = outcome
            try? await stores.index.forget(profile)
        } catch {
            let failure = CommandFailure.from(error, profile: profile, action: "logout")
            output.failure(failure, terminal: terminal)
            throw ExitCode(failure.status)
        }

        switch revocation {
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
        case .failed:
            let failure =
                revocationFailure
                ?? CommandFailure(
                    status: ExitStatus.revocationFailed, code: "revocationFailed", message: "revocation failed")
            terminal.error(
                "revoking the tokens at the provider failed: \(failure.message)",
                fix: "they were deleted here, but may stay valid at the provider until they expire")
        }
        if json {
            var object: [String: Any] = [
                "profile": profile, "deleted": true, "store": kind.rawValue, "revocation": revocation.rawValue,
            ]
            if let revocationFailure {
                object["revocation_error"] = ["code": revocationFailure.code, "message": revocationFailure.message]
            }
            output.emit(object)
        }
        if revocation == .failed { throw ExitCode(ExitStatus.revocationFailed) }
    }

    /// Revokes the refresh token, then the access token (each attempted even if the other
    /// fails). Never throws: the entry is deleted whatever happens here.
    static func revoke(_ entry: StoredTokens, profile: String) async -> (Revocation, CommandFailure?) {
        guard let configuration = entry.configuration else { return (.notPossible, nil) }
        do {
            let client = try OAuthClient(configuration: configuration)
            guard try await client.metadata().revocationEndpoint != nil else { return (.unsupported, nil) }
            var firstError: OAuthError?
            if let refreshToken = entry.tokens.refreshToken {
                do {
                    try await client.revoke(token: refreshToken, hint: .refreshToken)
                } catch {
                    firstError = error
                }
            }
            do {
                try await client.revoke(token: entry.tokens.accessToken, hint: .accessToken)
            } catch {
                firstError = firstError ?? error
            }
            if let firstError { throw firstError }
            return (.revoked, nil)
        } catch {
            return (.failed, CommandFailure.from(error, profile: profile, action: "revocation"))
        }
    }
}
