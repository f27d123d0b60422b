// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuthCore
import WebAuthFastPath
import WebAuthOAuth
import WebAuthTokenStore

/// `webauth status`: what each profile is signed in to — never a token.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the signed-in profiles: store, issuer, client, subject, scopes, expiry.",
        discussion: """
            Lists every profile (or only --profile NAME) in the stores --store names: where it is \
            kept, the issuer, client ID, subject, granted scopes, when the access token expires, \
            and whether a refresh token is held. No token is ever shown. Nothing is refreshed.

            \(ExitStatus.helpText)
            """
    )

    @Option(help: ArgumentHelp("Show only this profile.", valueName: "NAME"), completion: ProfileOptions.completion)
    var profile: String?

    @OptionGroup var storeOption: StoreOption

    @Flag(help: "Print {\"profiles\": [...]} as JSON on standard output.")
    var json = false

    func validate() throws {
        if let profile { try ProfileOptions.validate(profile) }
    }

    /// One profile as shown: what the entry says, or why it cannot be read.
    struct Row: Sendable {
        var profile: String
        var kind: TokenStoreKind
        var location: String
        var entry: StoredTokens?
        var problem: CommandFailure?
    }

    func run() async throws {
        let output = CommandOutput(json: json)
        let terminal = TerminalOutput()
        let rows = await collectRows()
        if let profile, rows.isEmpty {
            let failure = CommandFailure.notSignedIn(profile: profile)
            output.failure(failure, terminal: terminal)
            throw ExitCode(failure.status)
        }
        let now = Date()
        if json {
            output.emit(["profiles": rows.map { Self.jsonObject($0, now: now) }])
        } else if rows.isEmpty {
            terminal.line("No profile is signed in. Sign in with `webauth login --issuer URL --client-id ID`.")
        } else {
            let text = rows.map { Self.describe($0, now: now) }.joined(separator: "\n\n")
            output.result(text)
        }
        if let failed = rows.first(where: { $0.problem != nil })?.problem {
            if !json { terminal.error(failed.message, fix: failed.fix) }
            throw ExitCode(failed.status)
        }
    }

    /// Reads every profile of every store listed.
    func collectRows() async -> [Row] {
        await storeOption.stores().list(profile: profile).map { listing in
            var row = Row(profile: listing.profile ?? "*", kind: listing.store, location: listing.location)
            switch listing.entry {
            case .success(let entry):
                row.entry = entry
            case .failure(let error):
                row.problem = CommandFailure.from(
                    error, profile: listing.profile ?? profile ?? ProfileOptions.defaultProfile, action: "")
            }
            return row
        }
    }

    // MARK: Presenting

    /// The human form of one profile.
    static func describe(_ row: Row, now: Date) -> String {
        // Values from the provider (subject, scopes) and from the store go through UntrustedText.
        var lines = [UntrustedText("\(row.profile)  (\(row.kind): \(row.location))").displayed()]
        func add(_ label: String, _ value: String) {
            lines.append(
                "  " + (label + ":").padding(toLength: 16, withPad: " ", startingAt: 0)
                    + UntrustedText(value).displayed())
        }
        guard let entry = row.entry else {
            add("error", row.problem?.description ?? "unreadable")
            return lines.joined(separator: "\n")
        }
        add("issuer", EntryDescription.issuer(of: entry) ?? entry.tokenEndpoint ?? "(unknown)")
        add("client", entry.clientID)
        add("subject", entry.tokens.idTokenClaims?.subject ?? "(no ID token)")
        add("scopes", entry.tokens.scopes.isEmpty ? "(none listed)" : entry.tokens.scopes.joined(separator: " "))
        add("access token", EntryDescription.expiry(entry.tokens.expiresAt, now: now))
        add("refresh token", entry.tokens.refreshToken == nil ? "none" : "held")
        if entry.configuration?.grant == .clientCredentials { add("grant", "client credentials: asks again") }
        if entry.configuration == nil { add("note", "saved without its client configuration: cannot refresh") }
        return lines.joined(separator: "\n")
    }

    /// The JSON form of one profile: no token values.
    static func jsonObject(_ row: Row, now: Date) -> [String: Any] {
        var object: [String: Any] = ["profile": row.profile, "store": row.kind.rawValue, "location": row.location]
        if let entry = row.entry {
            object["issuer"] = EntryDescription.issuer(of: entry) ?? NSNull()
            object["client_id"] = entry.clientID
            object["subject"] = entry.tokens.idTokenClaims?.subject ?? NSNull()
            object["scopes"] = entry.tokens.scopes
            object["expires_at"] = entry.tokens.expiresAt.map(JSONDate.string) ?? NSNull()
            object["expired"] = entry.tokens.isExpired(at: now)
            object["has_refresh_token"] = entry.tokens.refreshToken != nil
            object["can_refresh"] = (try? TokenFreshness.renewal(of: entry).get()) != nil
            object["saved_at"] = JSONDate.string(entry.savedAt)
        }
        if let problem = row.problem {
            object["error"] = ["code": problem.code, "message": problem.message]
        }
        return object
    }
}
