// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuthFastPath
import WebAuthOAuth
import WebAuthTokenStore

/// `webauth token`: prints a fresh access token for a profile, refreshing it first if needed, or
/// a token exchanged for it for another audience.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a fresh access token for a signed-in profile (refreshing it if needed).",
        discussion: """
            Standard output gets the access token and a newline, nothing else, so it can be used \
            as $(webauth token):

              curl -H "Authorization: Bearer $(webauth token --profile work)" https://api.example.com/

            While the stored token is valid for at least --min-validity seconds it is printed \
            straight from the store, with no network traffic. Otherwise it is refreshed with the \
            stored refresh token, under the profile's lock: processes refreshing at once take \
            turns, and each sees the tokens the one before it stored, so a rotated refresh token \
            is never used twice.

            With --audience or --resource it prints a token for that target instead: the \
            profile's access token exchanged at the provider (OAuth 2.0 Token Exchange, \
            RFC 8693), kept with the profile until it expires, one per target:

              webauth token --profile work --audience https://api.example.com --scope read

            When `webauth agent` holds the profile, it answers instead of the store — targets \
            included: the agent exchanges the token and keeps the result in its memory.

            \(ExitStatus.helpText)
            """
    )

    @Option(help: ProfileOptions.help, completion: ProfileOptions.completion)
    var profile: String = ProfileOptions.defaultProfile

    @Option(
        name: .customLong("min-validity"),
        help: ArgumentHelp("Refresh when the token expires within this many seconds.", valueName: "SECONDS"))
    var minimumValidity: Double = 60

    @OptionGroup var storeOption: StoreOption

    @Flag(help: "Print {\"access_token\", \"expires_at\", \"token_type\"} as JSON instead.")
    var json = false

    @Flag(help: "Say on standard error where the token came from when the agent did not answer (never a token).")
    var verbose = false

    @Option(
        name: .customLong("dpop-proof"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "For DPoP-bound tokens: print the two header lines one request needs (Authorization: DPoP … and a fresh DPoP: proof).",
            valueName: "METHOD URL"))
    var dpopProof: [String] = []

    @Option(
        help: ArgumentHelp(
            "Print a token for this audience instead, exchanged for the profile's (RFC 8693).", valueName: "AUDIENCE"))
    var audience: String?

    @Option(
        help: ArgumentHelp(
            "Print a token for this resource (an absolute URI) instead, exchanged for the profile's.",
            valueName: "URI"))
    var resource: String?

    @Option(
        name: .customLong("scope"),
        help: ArgumentHelp("With --audience or --resource: a scope to ask for (repeatable).", valueName: "SCOPE"))
    var scopes: [String] = []

    /// The exchange target, when one is named.
    var target: ExchangeTarget? {
        guard audience != nil || resource != nil else { return nil }
        return ExchangeTarget(
            audience: audience, resource: resource.flatMap(URL.init(string:)),
            scopes: scopes.flatMap { $0.split(separator: " ").map(String.init) })
    }

    func validate() throws {
        try ProfileOptions.validate(profile)
        if audience == nil, resource == nil, !scopes.isEmpty {
            throw ValidationError("--scope asks for a narrower token: give --audience or --resource too.")
        }
        if let audience,
            audience.isEmpty || audience.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        {
            throw ValidationError("--audience must be a non-empty name without control characters.")
        }
        if let resource, !ExchangeCommand.isResource(resource) {
            throw ValidationError("--resource must be an absolute URI without a fragment.")
        }
        if target != nil, !dpopProof.isEmpty {
            throw ValidationError(
                "--dpop-proof is for the profile's own DPoP-bound token; leave out --audience and --resource.")
        }
        try SecondsOption.validate(minimumValidity, option: "--min-validity", allowsZero: true)
        if !dpopProof.isEmpty {
            guard dpopProof.count == 2, let url = URL(string: dpopProof[1]), url.scheme != nil, url.host != nil,
                !dpopProof[0].isEmpty, dpopProof[0].allSatisfy({ $0.isLetter && $0.isASCII })
            else {
                throw ValidationError(
                    "--dpop-proof takes a method and an absolute URL, such as --dpop-proof GET https://api.example.com/items"
                )
            }
            guard !json else { throw ValidationError("--dpop-proof prints header lines; leave out --json") }
        }
    }

    func run() async throws {
        let output = CommandOutput(json: json)
        do {
            let tokens = try await freshTokens()
            if !dpopProof.isEmpty {
                guard tokens.isDPoPBound, let key = tokens.dpopKey else {
                    throw CommandFailure(
                        status: ExitStatus.failure, code: "notDPoPBound",
                        message: "the tokens of profile \"\(profile)\" are not DPoP-bound (or their key was not kept)",
                        fix: "sign in with `webauth login --dpop …`, or send the token as Bearer")
                }
                let proof = DPoPProof(
                    method: dpopProof[0], url: URL(string: dpopProof[1])!, accessToken: tokens.accessToken)
                output.exact("Authorization: DPoP \(tokens.accessToken)\nDPoP: \(proof.signed(with: key))\n".utf8)
            } else if json {
                var object: [String: Any] = ["access_token": tokens.accessToken, "token_type": tokens.tokenType]
                object["expires_at"] = tokens.expiresAt.map(JSONDate.string) ?? NSNull()
                output.emit(object)
            } else {
                output.exact((tokens.accessToken + "\n").utf8)
            }
        } catch {
            let failure = CommandFailure.from(
                error, profile: profile, action: target == nil ? "refresh" : "token exchange")
            output.failure(failure, terminal: TerminalOutput())
            throw ExitCode(failure.status)
        }
    }

    /// The stored tokens if fresh; else refreshed under the profile's lock and stored.
    func freshTokens() async throws -> TokenSet {
        let stores = storeOption.stores()
        let validity = SecondsOption.duration(minimumValidity)
        let verbose = verbose
        var fellBack = false
        let fallingBack = { (reason: String) in
            fellBack = true
            if verbose { TerminalOutput().note("\(reason); using the token store") }
        }
        let tokens =
            if let target {
                try await stores.freshTokens(
                    profile: profile, exchangedFor: target, minimumValidity: validity, fallingBack: fallingBack)
            } else {
                try await stores.freshTokens(profile: profile, minimumValidity: validity, fallingBack: fallingBack)
            }
        // `--verbose` says which answered: the fallback says so above, the agent here.
        if verbose, let agent = stores.agent, !fellBack {
            TerminalOutput().note("the agent at \(agent.socketPath) answered")
        }
        return tokens
    }
}
