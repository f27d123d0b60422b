// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuthOAuth

/// `webauth exchange`: one OAuth 2.0 Token Exchange (RFC 8693), for CI jobs whose own OIDC token
/// becomes a provider's token. Nothing is stored.
struct ExchangeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exchange",
        abstract: "Exchange a token for another at the provider (RFC 8693) and print it.",
        discussion: """
            Reads the subject token from a file (or - for standard input, so that it never \
            appears on a command line), sends it to the provider's token endpoint with the \
            client's own authentication, and prints the issued token and a newline. Nothing is \
            stored. A CI job's OIDC token, for example:

              webauth exchange --issuer https://id.example.com --client-id ci \\
                --subject-token-file "$CI_JOB_JWT_FILE" --subject-token-type jwt --audience deploy

            Token types: access_token, refresh_token, id_token, jwt, saml1, saml2, or a full \
            urn:… URI.

            \(ExitStatus.helpText)
            """
    )

    @OptionGroup var options: LoginOptions

    @Option(
        name: .customLong("subject-token-file"),
        help: ArgumentHelp("The file holding the token to exchange, or - for standard input.", valueName: "FILE"))
    var subjectTokenFile: String

    @Option(
        name: .customLong("subject-token-type"),
        help: ArgumentHelp("The subject token's type (default access_token).", valueName: "TYPE"))
    var subjectTokenType: String = "access_token"

    @Option(help: ArgumentHelp("Where the new token is to be used, as the provider names it.", valueName: "AUDIENCE"))
    var audience: String?

    @Option(help: ArgumentHelp("Where the new token is to be used, as an absolute URI.", valueName: "URI"))
    var resource: String?

    @Option(
        name: .customLong("requested-token-type"),
        help: ArgumentHelp("The type of token wanted.", valueName: "TYPE"))
    var requestedTokenType: String?

    @Flag(help: "Print {\"access_token\", \"issued_token_type\", \"token_type\", \"expires_at\"} as JSON instead.")
    var json = false

    func validate() throws {
        try options.validate()
        guard options.namesProvider else {
            throw ValidationError("Name the provider with --issuer, --preset or --config.")
        }
        guard audience != nil || resource != nil else {
            throw ValidationError("Give --audience or --resource: what the new token is for.")
        }
        if let resource, !Self.isResource(resource) {
            throw ValidationError("--resource must be an absolute URI without a fragment.")
        }
        for type in [subjectTokenType, requestedTokenType].compactMap({ $0 })
        where Self.tokenType(type) == nil {
            throw ValidationError(
                "'\(type)' is not a token type: access_token, refresh_token, id_token, jwt, saml1, saml2 or a urn: URI."
            )
        }
    }

    /// Whether `text` can be a `resource` (RFC 8707): an absolute URI without a fragment.
    static func isResource(_ text: String) -> Bool {
        URL(string: text).map { $0.scheme != nil && $0.fragment == nil } ?? false
    }

    /// A token type by its short name, or a full URI.
    static func tokenType(_ name: String) -> TokenTypeIdentifier? {
        let short: [String: TokenTypeIdentifier] = [
            "access_token": .accessToken, "refresh_token": .refreshToken, "id_token": .idToken, "jwt": .jwt,
            "saml1": .saml1, "saml2": .saml2,
        ]
        if let known = short[name] { return known }
        return name.hasPrefix("urn:") && !name.contains(where: \.isWhitespace)
            ? TokenTypeIdentifier(rawValue: name) : nil
    }

    func run() async throws {
        let output = CommandOutput(json: json)
        let terminal = TerminalOutput()
        do {
            let environment = ProcessInfo.processInfo.environment
            let configuration = try options.clientConfiguration(
                secret: try LoginSecret.resolve(options.clientSecret, environment: environment, terminal: terminal))
            let subjectToken = try readSubjectToken()
            let client = try OAuthClient(configuration: configuration)
            let exchanged = try await client.exchange(
                subjectToken: subjectToken, subjectTokenType: Self.tokenType(subjectTokenType)!, audience: audience,
                resource: resource.flatMap(URL.init(string:)), scopes: options.scopes,
                requestedTokenType: requestedTokenType.flatMap(Self.tokenType))
            if json {
                var object: [String: Any] = [
                    "access_token": exchanged.tokens.accessToken, "token_type": exchanged.tokens.tokenType,
                    "issued_token_type": exchanged.issuedTokenType.rawValue,
                ]
                object["expires_at"] = exchanged.tokens.expiresAt.map(JSONDate.string) ?? NSNull()
                output.emit(object)
            } else {
                output.exact((exchanged.tokens.accessToken + "\n").utf8)
            }
        } catch {
            let failure = CommandFailure.from(error, profile: "", action: "token exchange")
            output.failure(failure, terminal: terminal)
            throw ExitCode(failure.status)
        }
    }

    /// The subject token: the first line of the file's (or standard input's) first 64 KiB; no
    /// more is ever read.
    private func readSubjectToken() throws -> String {
        let handle = subjectTokenFile == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: subjectTokenFile)
        let data = try handle?.read(upToCount: 65_536)
        let token = data.flatMap { String(data: $0, encoding: .utf8) }?
            .split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let token, !token.isEmpty else {
            throw CommandFailure(
                status: ExitStatus.usage, code: "noSubjectToken",
                message: "no subject token in \(subjectTokenFile == "-" ? "standard input" : subjectTokenFile)",
                fix: "give the file that holds the token, or pipe it in with --subject-token-file -")
        }
        return token
    }
}
