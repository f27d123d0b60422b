// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTestSupport

/// No token, code, verifier or secret in any log line or error message: whole flows against the
/// embedded provider over real HTTP, with every log line of the client and its sessions captured
/// at `trace` level and scanned for the values the client sent and the provider issued.
@Suite("No secrets in logs")
struct SecretsInLogsTests {
    static let clientSecret = "client-secret-Zx81qPw"

    /// The provider, with a confidential client for these tests.
    static var configuration: EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.Configuration(requiresConsent: false)
        configuration.clients.append(
            .init(
                id: "logs-client", secret: clientSecret,
                redirectURIs: [URL(string: "http://127.0.0.1/callback")!, URL(string: "http://[::1]/callback")!]))
        return configuration
    }

    private func client(_ provider: EmbeddedProvider, logs: CapturedLogs, wire: Wire) throws -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(
                issuer: provider.issuer, clientID: "logs-client", clientSecret: Self.clientSecret,
                scopes: ["openid", "profile"]),
            transport: RecordingTransport(wire: wire), requestTimeout: .seconds(30),
            logger: logs.logger(label: "oauth"))
    }

    /// A session environment whose loopback listener — which sees the code and the state — logs
    /// into `logs` too.
    private func environment(_ logs: CapturedLogs) -> SessionEnvironment {
        SessionEnvironment(
            browser: ScriptedUserAgent(), receivers: [LoopbackReceiver(logger: logs.logger(label: "loopback"))])
    }

    /// Every value the client sent or the provider issued that must never be logged.
    private func secrets(sent wire: Wire, tokens: [TokenSet]) -> [String] {
        var values = [Self.clientSecret]
        for name in ["code", "code_verifier", "refresh_token", "token", "client_secret", "device_code"] {
            values += wire.formValues(name)
        }
        for name in ["access_token", "refresh_token", "id_token", "device_code"] {
            values += wire.answeredValues(name)
        }
        values += wire.requests.flatMap { $0.headerFields[values: .authorization] }
        for token in tokens {
            values += [token.accessToken, token.refreshToken, token.idToken].compactMap { $0 }
        }
        return values.filter { $0.count >= 8 }
    }

    @Test func aWholeSuccessfulFlowLogsNoSecret() async throws {
        try await EmbeddedProvider.withProvider(Self.configuration) { provider in
            let logs = CapturedLogs()
            let wire = Wire()
            let client = try client(provider, logs: logs, wire: wire)
            let tokens = try await client.signIn(environment: environment(logs)) { $0.timeout = .seconds(30) }
            let refreshed = try await client.refresh(tokens)
            _ = try await client.userInfo(for: refreshed)
            try await client.revoke(refreshed)

            let values = secrets(sent: wire, tokens: [tokens, refreshed])
            #expect(values.count >= 8, "the scan has something to look for")
            #expect(logs.all.count >= 5, "the flow was logged")
            #expect(logs.lines(containingAnyOf: values).isEmpty)
        }
    }

    @Test func failuresLogAndReportNoSecret() async throws {
        try await EmbeddedProvider.withProvider(Self.configuration) { provider in
            let logs = CapturedLogs()
            let wire = Wire()
            let client = try client(provider, logs: logs, wire: wire)
            let tokens = try await client.signIn(environment: environment(logs)) { $0.timeout = .seconds(30) }
            var messages: [String] = []

            // The token endpoint refuses, echoing the refresh token in its description.
            guard let refreshToken = tokens.refreshToken else {
                Issue.record("no refresh token")
                return
            }
            provider.setFault(.error("invalid_grant", description: "grant \(refreshToken) revoked"), for: .token)
            do {
                _ = try await client.refresh(tokens)
                Issue.record("the refresh succeeded")
            } catch {
                messages.append(String(describing: error))
            }

            // An ID token that fails validation after a successful exchange.
            provider.setFault(nil, for: .token)
            provider.forgeIDTokenSignatures(.unsigned)
            do throws(OAuthError) {
                _ = try await client.signIn(environment: environment(logs)) { $0.timeout = .seconds(30) }
                Issue.record("an unsigned ID token was accepted")
            } catch {
                #expect(error.code == .invalidIDToken)
                messages.append(String(describing: error))
            }

            // The refused ID token too: the provider sent it.
            let values = secrets(sent: wire, tokens: [tokens]) + [refreshToken]
            #expect(logs.lines(containingAnyOf: values).isEmpty)
            #expect(messages.filter { message in values.contains { message.contains($0) } }.isEmpty)
            #expect(messages.count == 2)
        }
    }

    @Test func printingOrDumpingAValueShowsNoSecret() throws {
        let secret = "secret-value-Q7vLm2"
        let verifier = String(repeating: "v", count: 43)
        let dpopKey = DPoPKey()
        // The private JWK's `d`, as a file entry stores it.
        let storedKey = try JSONSerialization.jsonObject(with: JSONEncoder().encode(dpopKey)) as? [String: String]
        let privateKey = try #require(storedKey?["d"])
        let values: [(Any, [String])] = [
            (
                TokenSet(accessToken: "access-" + secret, refreshToken: "refresh-" + secret, idToken: "id-" + secret),
                ["access-" + secret, "refresh-" + secret, "id-" + secret]
            ),
            (
                ClientConfiguration(issuer: URL(string: "https://issuer.example"), clientID: "c", clientSecret: secret),
                [secret]
            ),
            (try PKCE(verifier: verifier), [verifier]),
            (dpopKey, [privateKey]),
            (TokenSet(accessToken: "access-" + secret, tokenType: "DPoP", dpopKey: dpopKey), [privateKey]),
            (
                DeviceAuthorization(
                    deviceCode: secret, userCode: "ABCD-EFGH",
                    verificationURI: URL(string: "https://issuer.example/device")!,
                    verificationURIComplete: nil, expiresAt: Date(), interval: .seconds(5)),
                [secret]
            ),
            (AuthorizationGrant.code(secret), [secret]),
            (AuthorizationGrant.implicit(["access_token": secret]), [secret]),
            (
                HTTPTransportRequest(
                    method: "POST", url: URL(string: "https://issuer.example/token?x=\(secret)")!,
                    headerFields: [.authorization: "Basic \(secret)"],
                    body: Data("refresh_token=\(secret)".utf8)),
                [secret]
            ),
        ]
        for (value, hidden) in values {
            var dumped = ""
            dump(value, to: &dumped)
            for text in [String(describing: value), String(reflecting: value), dumped] {
                #expect(!hidden.contains { text.contains($0) }, "\(type(of: value)) shows a secret: \(text)")
            }
        }
    }
}
