// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import HTTPTypes
import WebAuthCore
import WebAuthFastPath
import WebAuthOAuth
import WebAuthTokenStore

/// `webauth request URL`: an HTTP request with the profile's access token, like `gh api` — the
/// body on standard output, the exit status from the HTTP status class.
struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send an HTTP request with a signed-in profile's access token.",
        discussion: """
            Sends Authorization: <token type> <access token>, with the token fresh from the \
            store (refreshed first if it expires within a minute); a DPoP-bound token goes as \
            Authorization: DPoP with a fresh DPoP proof. When the server answers 401, \
            the token is refreshed once and the request sent once more. The response body goes \
            to standard output as it is; with --include the status and header fields go to \
            standard error first.

              webauth request --profile work https://api.example.com/me
              webauth request -X POST -H 'Content-Type: application/json' -d @body.json https://api.example.com/items

            Only https URLs, or http to a loopback address. Redirects are followed here, at most \
            10: the token goes only to the origin of the URL given, a redirect from https to \
            http is refused, and 303 (or 301/302 after a POST) becomes a GET without the body. \
            With -d and no Content-Type, the body is sent as \
            application/x-www-form-urlencoded, as curl does.

            The exit status follows the HTTP status: 0 for 2xx, 20 for a final 1xx or 3xx, 21 \
            for 4xx, 22 for 5xx.

            \(ExitStatus.helpText)
            """
    )

    @Argument(help: "The URL: https, or http to a loopback address.")
    var url: String

    @Option(name: [.customShort("X"), .customLong("method")], help: "The method. Default GET, or POST with -d.")
    var method: String?

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("A header field to send; repeat for more.", valueName: "Name: value"))
    var headers: [String] = []

    @Option(
        name: [.customShort("d"), .customLong("data")],
        help: ArgumentHelp(
            "The body: @FILE for a file's bytes, - for standard input, else the text itself.",
            valueName: "@FILE|-|TEXT"))
    var data: String?

    @Flag(
        name: [.customShort("i"), .customLong("include")], help: "Print the status and header fields on standard error."
    )
    var include = false

    @Option(help: ProfileOptions.help, completion: ProfileOptions.completion)
    var profile: String = ProfileOptions.defaultProfile

    @OptionGroup var storeOption: StoreOption

    /// The largest response body read: 64 MiB.
    static let maximumResponseSize = 64 << 20

    func validate() throws {
        try ProfileOptions.validate(profile)
        guard let parsed = URL(string: url), parsed.scheme != nil, parsed.host != nil else {
            throw ValidationError("'\(url)' is not an absolute URL.")
        }
        do {
            try ResourceClient.check(parsed)
        } catch {
            throw ValidationError(error.message + ".")
        }
        _ = try headerFields()
        if let method, method.isEmpty || !method.allSatisfy({ $0.isLetter && $0.isASCII }) {
            throw ValidationError("-X must be a method name such as GET or POST.")
        }
    }

    /// The `-H` fields, checked: a name of token characters, a value without line breaks.
    func headerFields() throws -> HTTPFields {
        try HTTPFields(
            headers.map { header in
                guard let colon = header.firstIndex(of: ":") else {
                    throw ValidationError("-H must be 'Name: value'.")
                }
                let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                guard let name = HTTPField.Name(String(header[..<colon])),
                    !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
                else {
                    throw ValidationError("-H must be 'Name: value', with a field name and no line break.")
                }
                return HTTPField(name: name, value: value)
            })
    }

    func run() async throws {
        let output = CommandOutput(json: false)
        let terminal = TerminalOutput()
        do {
            let response = try await send()
            if include {
                terminal.line("HTTP \(response.status)")
                for field in response.headerFields { terminal.line("\(field.name.rawName): \(field.value)") }
                terminal.line("")
            }
            output.exact(response.body)
            let status = ExitStatus.status(forHTTPStatus: response.status)
            if status != ExitStatus.success { throw ExitCode(status) }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            let failure = Self.failure(for: error, profile: profile)
            output.failure(failure, terminal: terminal)
            throw ExitCode(failure.status)
        }
    }

    /// Sends the request through a ``ResourceClient`` with the profile's tokens.
    func send() async throws -> HTTPTransportResponse {
        guard let target = URL(string: url) else { throw ValidationError("'\(url)' is not an absolute URL.") }
        var fields = try headerFields()
        let body = try readBody()
        if body != nil, fields[.contentType] == nil {
            fields[.contentType] = "application/x-www-form-urlencoded"
        }
        let request = HTTPTransportRequest(
            method: method?.uppercased() ?? (body == nil ? "GET" : "POST"), url: target, headerFields: fields,
            body: body, maximumResponseSize: Self.maximumResponseSize)
        return try await ResourceClient(tokenProvider: try await tokenProvider()).send(request)
    }

    /// The profile's token provider: the agent's token first when it holds the profile (a
    /// `Bearer` token) — renewed by the agent, the profile's only refresher, after a `401`, so
    /// that it needs no store here (the far side of a forwarded socket has none) — else the
    /// store's.
    func tokenProvider() async throws -> AccessTokenProvider {
        let stores = storeOption.stores()
        guard let agent = stores.agent,
            case .tokens(let answer) = try await agent.tokens(profile: profile, minimumValidity: .seconds(60)),
            !answer.tokens.isDPoPBound, let clientID = answer.clientID
        else { return try await stores.accessTokenProvider(profile: profile) }
        let profile = profile
        let client = try OAuthClient(configuration: ClientConfiguration(issuer: answer.issuer, clientID: clientID))
        return AccessTokenProvider(client: client, tokens: answer.tokens) { refused in
            // Valid for as long as the refused one had left, which by now it has not: the agent
            // refreshes to give it.
            let left = refused.expiresAt.map { $0.timeIntervalSinceNow } ?? 0
            switch try await agent.tokens(profile: profile, minimumValidity: .seconds(max(60, left))) {
            case .tokens(let renewed):
                return renewed.tokens
            case .notAnswered(let reason):
                throw AgentClient.Failure(code: .failed, message: reason)
            }
        }
    }

    /// The `-d` body: a file's bytes, standard input's, or the text.
    func readBody() throws -> Data? {
        guard let data else { return nil }
        if data == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard data.hasPrefix("@") else { return Data(data.utf8) }
        let path = String(data.dropFirst())
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(
                status: ExitStatus.usage, code: "unreadableBody", message: "cannot read the body file \(path)")
        }
        return contents
    }

    /// The failure for `error`: the resource server's own failures named as such, the token's
    /// as `webauth token` names them.
    static func failure(for error: any Error, profile: String) -> CommandFailure {
        switch error {
        case let error as HTTPTransportError:
            return CommandFailure(
                status: error.code == .responseTooLarge ? ExitStatus.failure : ExitStatus.networkFailed,
                code: error.code.description, message: error.message)
        case let error as OAuthError where error.code == .redirectRefused || error.code == .insecureEndpoint:
            return CommandFailure(
                status: ExitStatus.status(for: error), code: error.code.description, message: error.message,
                fix: error.code == .insecureEndpoint ? "use https (http only to a loopback address)" : nil)
        case let error as ValidationError:
            return CommandFailure(status: ExitStatus.usage, code: "usage", message: error.message)
        default:
            return CommandFailure.from(error, profile: profile, action: "refresh")
        }
    }
}
