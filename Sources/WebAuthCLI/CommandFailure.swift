// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import WebAuth
import WebAuthOAuth
import WebAuthTokenStore

/// Why a token command failed, for people and scripts: a message that never holds a token,
/// what to do about it, a stable code name and the exit status (see ``ExitStatus``).
struct CommandFailure: Error, Sendable, CustomStringConvertible {
    /// The exit status.
    var status: Int32
    /// A stable name for `--json` output, such as `notSignedIn` or `invalid_grant`.
    var code: String
    /// What went wrong.
    var message: String
    /// How to fix it, if there is something to do.
    var fix: String?

    /// `message` and `fix`.
    var description: String { fix.map { "\(message): \($0)" } ?? message }

    // MARK: Known situations

    /// The command people run to sign `profile` in again.
    static func loginCommand(profile: String) -> String {
        profile == ProfileOptions.defaultProfile ? "`webauth login …`" : "`webauth login --profile \(profile) …`"
    }

    /// The profile has no entry in the store.
    static func notSignedIn(profile: String) -> CommandFailure {
        CommandFailure(
            status: ExitStatus.notSignedIn, code: "notSignedIn", message: "no profile \"\(profile)\" is signed in",
            fix: "run \(loginCommand(profile: profile))")
    }

    /// The access token expired and there is no refresh token.
    static func expiredWithoutRefreshToken(profile: String) -> CommandFailure {
        CommandFailure(
            status: ExitStatus.notSignedIn, code: "noRefreshToken",
            message: "the access token of profile \"\(profile)\" has expired and there is no refresh token",
            fix: "sign in again with \(loginCommand(profile: profile))")
    }

    /// The entry has no client configuration, so it cannot be refreshed or revoked.
    static func noConfiguration(profile: String, toDo: String) -> CommandFailure {
        CommandFailure(
            status: ExitStatus.notSignedIn, code: "noConfiguration",
            message: "profile \"\(profile)\" was saved without its client configuration, so it cannot be \(toDo)",
            fix: "sign in again with \(loginCommand(profile: profile))")
    }

    /// The profile's tokens are DPoP-bound, and `consumer` cannot present a proof.
    static func dpopBound(profile: String, consumer: String) -> CommandFailure {
        CommandFailure(
            status: ExitStatus.failure, code: "dpopBound",
            message:
                "the tokens of profile \"\(profile)\" are DPoP-bound: each use needs a fresh proof, which \(consumer) cannot send, so webauth hands it no token",
            fix:
                "use `webauth request`, or `webauth token --dpop-proof METHOD URL` for the two header lines, or sign in a profile without --dpop for \(consumer)"
        )
    }

    // MARK: From errors

    /// The failure for an error from the OAuth layer, the token store or the session; `profile`
    /// and `action` (such as "refresh") phrase the message and the fix.
    static func from(
        _ error: any Error, profile: String, action: String, clientAuthentication: ClientAuthenticationMethod? = nil
    ) -> CommandFailure {
        switch error {
        case let failure as CommandFailure:
            return failure
        case let error as OAuthError:
            return from(error, profile: profile, action: action, clientAuthentication: clientAuthentication)
        case let error as AgentClient.Failure:
            return from(error, profile: profile)
        case let error as TokenStoreError where error.code == .notSignedIn:
            return notSignedIn(profile: profile)
        case let error as TokenStoreError where error.code == .noRefreshToken:
            return expiredWithoutRefreshToken(profile: profile)
        case let error as TokenStoreError where error.code == .noConfiguration:
            return noConfiguration(profile: profile, toDo: "refreshed")
        case let error as TokenStoreError:
            return from(error)
        case let error as WebAuthenticationSessionError:
            return CommandFailure(
                status: ExitStatus.status(for: error), code: error.code.description, message: error.message)
        case let error as ExitCode:
            return CommandFailure(status: error.rawValue, code: "exit", message: "stopped")
        default:
            // Only the type: an unknown error's description might quote anything.
            return CommandFailure(
                status: ExitStatus.failure, code: "failure", message: "\(action) failed (\(type(of: error)))")
        }
    }

    /// The failure for the agent's refusal: the person's or the provider's is exit 9, a
    /// profile not signed in (or held by an agent that stopped) exit 8.
    static func from(_ error: AgentClient.Failure, profile: String) -> CommandFailure {
        let login = loginCommand(profile: profile)
        switch error.code {
        case .confirmationRefused:
            return CommandFailure(
                status: ExitStatus.providerRefused, code: "confirmationRefused", message: error.message)
        case .refreshRefused:
            return CommandFailure(
                status: ExitStatus.providerRefused, code: OAuthServerError.Code.invalidGrant.rawValue,
                message: error.message, fix: "sign in again with \(login)")
        case .notSignedIn:
            return CommandFailure(
                status: ExitStatus.notSignedIn, code: "notSignedIn", message: error.message, fix: "run \(login)")
        case .agentStopped:
            return CommandFailure(
                status: ExitStatus.notSignedIn, code: "notSignedIn", message: "not signed in: \(error.message)",
                fix: "start the agent and sign in again with \(login) --agent-only")
        case .noAgent:
            return CommandFailure(
                status: ExitStatus.failure, code: "noAgent", message: error.message,
                fix: "start one with `webauth agent start`, or set WEBAUTH_AGENT_SOCK")
        case .exchangeFailed:
            // As the exchange's own error would be, had this process asked the provider.
            guard let oauth = error.oauthError else {
                return CommandFailure(status: ExitStatus.failure, code: "exchangeFailed", message: error.message)
            }
            return from(oauth, profile: profile, action: "token exchange")
        case .failed:
            return CommandFailure(status: ExitStatus.failure, code: "agentFailed", message: error.message)
        }
    }

    static func from(
        _ error: OAuthError, profile: String, action: String, clientAuthentication: ClientAuthenticationMethod? = nil
    ) -> CommandFailure {
        let status = ExitStatus.status(for: error)
        let login = loginCommand(profile: profile)
        if let server = error.serverError, error.code == .server, status == ExitStatus.cancelledByUser {
            // The person's answer in the browser, with the provider's own word for it.
            let detail = server.safeDescription.map { ": \($0)" } ?? ""
            return CommandFailure(
                status: status, code: server.code.rawValue,
                message: "the sign-in was refused in the browser (\(server.code))\(detail)",
                fix: server.code == .accessDenied
                    ? "sign in again with \(login) and allow the access asked for"
                    : "sign in again with \(login), and sign in and consent at the provider's pages")
        }
        if let server = error.serverError, error.code == .server {
            // "Refused" is exit status 9 in the table; the other answers (10) say what they are.
            var message =
                status == ExitStatus.providerRefused
                ? "the provider refused the \(action)" : "the provider could not do the \(action)"
            if action == "refresh", status == ExitStatus.providerRefused {
                message = "the provider refused the refresh token"
            }
            if server.code == .unsupportedGrantType { message = "the provider does not offer the \(action)" }
            let detail = server.safeDescription.map { ": \($0)" } ?? ""
            let fix: String? =
                switch server.code {
                case .invalidGrant, .accessDenied, .invalidScope, .loginRequired, .consentRequired,
                    .interactionRequired:
                    "sign in again with \(login)"
                case .invalidClient where clientAuthentication == .privateKeyJWT:
                    "check the client key (--client-key: the private half of a key the provider holds for this "
                        + "client, with its kid) and that the provider accepts private_key_jwt for this client, then "
                        + "sign in again with \(login)"
                case .invalidClient, .unauthorizedClient:
                    "check the client ID and secret, then sign in again with \(login)"
                case .serverError, .temporarilyUnavailable:
                    "try again later"
                default:
                    nil
                }
            return CommandFailure(
                status: status, code: server.code.rawValue, message: "\(message) (\(server.code))\(detail)", fix: fix)
        }
        if let unverified = error.serverError, error.code == .issuerMissing {
            // Refused all the same; what the answer says is still the likely fix.
            let fix: String? =
                switch unverified.code {
                case .invalidScope:
                    "check the --scope values: this provider may not allow one of them (some providers refuse "
                        + "offline_access, which others need for a refresh token), then sign in again with \(login)"
                case .invalidClient, .unauthorizedClient:
                    "check the client ID and how the client is registered, then sign in again with \(login)"
                case .invalidRequest:
                    "check the sign-in options, then sign in again with \(login)"
                case .accessDenied:
                    "sign in again with \(login)"
                default:
                    nil
                }
            return CommandFailure(status: status, code: error.code.description, message: error.message, fix: fix)
        }
        if let session = error.sessionError, error.code == .session {
            return CommandFailure(
                status: ExitStatus.status(for: session), code: session.code.description, message: session.message)
        }
        let fix: String? =
            switch error.code {
            case .transportFailed, .timedOut: "check the network connection and the provider's address, then try again"
            case .noRefreshToken: "sign in again with \(login)"
            case .deviceCodeExpired: "run the command again and approve sooner"
            case .invalidConfiguration, .insecureEndpoint: "check the client configuration"
            default: nil
            }
        let prefix = status == ExitStatus.networkFailed ? "cannot reach the provider: " : ""
        return CommandFailure(status: status, code: error.code.description, message: prefix + error.message, fix: fix)
    }

    static func from(_ error: TokenStoreError) -> CommandFailure {
        let fix: String? =
            switch error.code {
            case .lockTimeout: "another webauth process is holding the profile; try again when it has finished"
            case .keyringUnavailable:
                "unlock or start the desktop keyring, or use --store file"
            case .keyringFailed: "check the desktop keyring, or use --store file"
            case .insecureDirectory:
                "webauth's directories must be yours, not links, and not writable by others (the token directory "
                    + "0700)"
            case .insecureFile: "make the token directory 0700 and its files 0600, owned by you"
            case .corrupt: "remove it with `webauth logout` and sign in again"
            default: nil
            }
        return CommandFailure(
            status: ExitStatus.status(for: error), code: error.code.rawValue,
            message: "the token store failed: \(error.message)", fix: fix)
    }
}
