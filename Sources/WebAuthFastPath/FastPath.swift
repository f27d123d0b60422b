// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthAgentProtocol
import WebAuthCredentialHelpers
import WebAuthTokenFiles

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// What `webauth` answers before it loads its full command set: a cached, fresh token for the
/// everyday calls (``FastPathCommand``) — the same bytes on standard output the full command
/// writes, exit status 0. Whenever it cannot be sure of that (see ``FastPathCommand`` and
/// ``CachedTokenLookup``, plus a token type other than `Bearer`, a token that needs a refresh,
/// input git or kubectl sent that is not plain), it answers `nil` and the full program runs
/// with the same command line, input and environment, so every message, refresh and exit
/// status comes from one place.
///
/// It reads files, and the keyring over D-Bus, with FoundationEssentials and the C library only:
/// no argument parser, no networking stack, no other process; in release builds a static
/// executable, with no shared library at all and nothing that needs one at run time (NSS, DNS,
/// iconv, `dlopen`: see `scripts/check-static-fast-path`).
///
/// ```swift
/// if let output = FastPath.answer(arguments, environment: environment, now: Date(), standardInput: readInput) {
///     write(1, output)  // and exit 0
/// }
/// ```
package enum FastPath {
    /// The environment variable that turns the fast path off (`WEBAUTH_FAST_PATH=0`), a
    /// diagnostic: every call then takes the full program's way.
    package static let switchVariable = "WEBAUTH_FAST_PATH"

    /// The environment variables the fast path reads: its own, and the agent socket's
    /// (``AgentSocketPath/environmentNames``). One literal, so that it costs nothing to make.
    package static let environmentNames = [
        "XDG_STATE_HOME", "HOME", "PATH", "DBUS_SESSION_BUS_ADDRESS", "KUBERNETES_EXEC_INFO", "WEBAUTH_FAST_PATH",
        "WEBAUTH_AGENT_SOCK", "XDG_RUNTIME_DIR", "TMPDIR",
    ]

    /// Standard output for `arguments`, or `nil` when the full program must answer.
    ///
    /// - Parameters:
    ///   - arguments: The command line without the program's name.
    ///   - environment: At least ``environmentNames``.
    ///   - now: The time freshness is judged at.
    ///   - standardInput: Reads standard input (only `git-credential get` calls it); `nil` when
    ///     it may not be read (a terminal) or failed.
    package static func answer(
        _ arguments: [String], environment: [String: String], now: Date, standardInput: () -> [UInt8]?
    ) -> [UInt8]? {
        answer(arguments, environmentValue: { environment[$0] }, now: now, standardInput: standardInput)
    }

    /// Standard output for `arguments`, or `nil` when the full program must answer, with the
    /// environment read through `environmentValue` (a variable's value, `nil` when unset): the
    /// program's way, which makes no dictionary (the first `[String: String]` a program grows
    /// costs the Swift runtime a walk over every protocol conformance in the binary).
    ///
    /// - Parameters:
    ///   - arguments: The command line without the program's name.
    ///   - environmentValue: The value of each of ``environmentNames``.
    ///   - now: The time freshness is judged at.
    ///   - standardInput: Reads standard input (only `git-credential get` calls it); `nil` when
    ///     it may not be read (a terminal) or failed.
    package static func answer(
        _ arguments: [String], environmentValue: (String) -> String?, now: Date, standardInput: () -> [UInt8]?
    ) -> [UInt8]? {
        guard environmentValue(switchVariable) != "0", let command = FastPathCommand(arguments: arguments),
            let lookup = CachedTokenLookup(environmentValue: environmentValue)
        else { return nil }
        let agent = AgentSocketPath(environmentValue: environmentValue)
        // The agent first, as the full program asks it; `nil` leaves the decision to the full
        // program, which asks again and reports.
        let freshBearer = { (profile: String, store: String, minimumValidity: Double) -> CachedEntry? in
            switch agentEntry(agent, profile, minimumValidity) {
            case .entry(let entry): return Self.freshBearer(entry, minimumValidity, now)
            case .fullProgram: return nil
            case .store: return Self.freshBearer(lookup, profile, store, minimumValidity, now)
            }
        }
        switch command {
        case .token(let profile, let minimumValidity, let store):
            guard let tokens = freshBearer(profile, store, minimumValidity)?.tokens else { return nil }
            return Array((tokens.accessToken + "\n").utf8)

        case .gitCredentialGet(let helperProfile, let username, let store, let profileFor):
            // git's input first, as the full command reads it; only https gets a token here, and
            // only for a host the profile is bound to (a refusal's message is the full program's).
            guard let input = standardInput(), let asked = try? GitCredential(reading: input),
                asked.protocol?.lowercased() == "https",
                case .answer(let profile) = GitHostBinding(profile: helperProfile, profileFor: profileFor).decision(
                    forHost: asked.host, recordedHosts: { lookup.bindings(profile: $0).gitHosts }),
                let entry = freshBearer(profile, store, defaultGitValidity)
            else { return nil }
            let answer = GitCredential(
                username: username
                    ?? GitCredential.conventionalUsername(
                        providerName: entry.configurationName, tokenEndpointHost: entry.tokenEndpointHost
                    ), password: entry.tokens.accessToken,
                passwordExpiry: entry.tokens.expiresAt)
            return try? answer.encoded()

        case .execCredential(let profile, let idToken, let minimumValidity, let store, let clusterServers):
            // A cluster the servers do not allow is refused by the full program, with its message.
            guard let request = try? ExecCredentialRequest(execInfo: environmentValue("KUBERNETES_EXEC_INFO")),
                ClusterServerBinding.decision(server: request.clusterServer, allowed: clusterServers) == .allowed,
                let entry = freshBearer(profile, store, minimumValidity)
            else { return nil }
            let credential: ExecCredential
            if idToken {
                guard let token = entry.tokens.idToken, let expiresAt = entry.tokens.idTokenExpiresAt,
                    expiresAt > now.addingTimeInterval(minimumValidity)
                else { return nil }
                credential = ExecCredential(apiVersion: request.apiVersion, token: token, expiration: expiresAt)
            } else {
                credential = ExecCredential(
                    apiVersion: request.apiVersion, token: entry.tokens.accessToken, expiration: entry.tokens.expiresAt)
            }
            return try? credential.encoded()
        }
    }

    /// How long git's token must stay valid: the full command's fixed 60 seconds.
    static let defaultGitValidity: Double = 60

    /// The entry, when its access token is a `Bearer` token fresh for `minimumValidity` seconds,
    /// turned into a duration as the full command turns it (``SecondsRule/duration(_:)``).
    static func freshBearer(
        _ lookup: CachedTokenLookup, _ profile: String, _ store: String, _ minimumValidity: Double, _ now: Date
    ) -> CachedEntry? {
        guard let entry = lookup.entry(profile: profile, store: store) else { return nil }
        return freshBearer(entry, minimumValidity, now)
    }

    /// `entry`, when its access token is a `Bearer` token fresh for `minimumValidity` seconds.
    static func freshBearer(_ entry: CachedEntry, _ minimumValidity: Double, _ now: Date) -> CachedEntry? {
        guard entry.tokens.tokenType == "Bearer",
            entry.isFresh(at: now, minimumValidity: SecondsRule.duration(minimumValidity))
        else { return nil }
        return entry
    }

    /// Where a token comes from, after asking the agent.
    enum AgentOutcome {
        /// The agent's token.
        case entry(CachedEntry)
        /// No agent listens here, or it does not hold the profile (or cannot give what was
        /// asked): the store, as without an agent.
        case store
        /// The agent refused, failed, or answered with something the fast path does not hand
        /// out: the full program asks again and reports.
        case fullProgram
    }

    /// Asks the agent at `socket` for `profile`'s token valid for `minimumValidity` seconds.
    static func agentEntry(_ socket: AgentSocketPath, _ profile: String, _ minimumValidity: Double) -> AgentOutcome {
        // Written and read without JSON coders (the full program's AgentClient falls back to them).
        guard let line = AgentRequest(.token, profile: profile, minimumValidity: minimumValidity).plainLine() else {
            return .fullProgram
        }
        switch AgentConnection.answer(
            line: line, path: socket.path, timeout: AgentProtocol.confirmationTimeout,
            reading: AgentAnswer.init(reading:))
        {
        case .failure(.noAgent):
            return .store
        case .failure:
            return .fullProgram
        case .answer(let answer):
            if answer.ok, let token = answer.token {
                guard
                    TokenCharacters.areAllowed(
                        accessToken: token.accessToken, tokenType: token.tokenType, idToken: token.idToken)
                else { return .fullProgram }
                return .entry(
                    CachedEntry(
                        tokens: CachedEntry.Tokens(
                            accessToken: token.accessToken, tokenType: token.tokenType, hasRefreshToken: false,
                            idToken: token.idToken,
                            idTokenExpiresAt: token.idTokenExpiresAt.map(Date.init(timeIntervalSince1970:)),
                            expiresAt: token.expiresAt.map(Date.init(timeIntervalSince1970:))),
                        configurationName: token.providerName, tokenEndpointHost: token.tokenEndpointHost))
            }
            switch answer.error?.code {
            case .notHeld?, .unsupported?: return .store
            default: return .fullProgram
            }
        }
    }

}
