// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuthCore
import WebAuthPlatform

@testable import WebAuthOAuth

/// Token-endpoint behaviour through the transport seam: client authentication, rotation,
/// error mapping. The same paths run over real HTTP in the provider tests.
@Suite("Token endpoint")
struct TokenEndpointTests {
    static let endpoints = ClientConfiguration.Endpoints(
        authorization: URL(string: "https://as.example/authorize"), token: URL(string: "https://as.example/token"),
        revocation: URL(string: "https://as.example/revoke"))

    private func client(
        secret: String? = nil, method: ClientAuthenticationMethod? = nil, clock: ManualClock = ManualClock(),
        _ transport: ScriptedTransport
    ) throws(OAuthError) -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(
                endpoints: Self.endpoints, clientID: "cli ent", clientSecret: secret, scopes: ["read"],
                clientAuthentication: method),
            transport: transport, clock: clock.oauthClock)
    }

    @Test func aPublicClientSendsItsIDAndTheVerifier() async throws {
        let transport = ScriptedTransport { _ in
            .json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt"}"#)
        }
        let clock = ManualClock()
        let tokens = try await client(clock: clock, transport).exchange(
            code: "c0de", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.headerFields[.authorization] == nil)
        #expect(
            request.formParameters == [
                "grant_type": "authorization_code", "code": "c0de", "redirect_uri": "http://127.0.0.1:1/cb",
                "code_verifier": "v", "client_id": "cli ent",
            ])
        #expect(tokens.accessToken == "at")
        #expect(tokens.refreshToken == "rt")
        #expect(tokens.expiresAt == clock.now.addingTimeInterval(3600))
        #expect(tokens.scopes == ["read"])
    }

    @Test func clientSecretBasicEncodesIDAndSecretBeforeBase64() async throws {
        let transport = ScriptedTransport { _ in .json(200, #"{"access_token":"at","token_type":"bearer"}"#) }
        _ = try await client(secret: "p@ss:word", transport).exchange(
            code: "c", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
        let request = try #require(transport.requests.first)
        let expected = Data("cli%20ent:p%40ss%3Aword".utf8).base64EncodedString()
        #expect(request.headerFields[.authorization] == "Basic \(expected)")
        #expect(request.formParameters["client_secret"] == nil)
        #expect(request.formParameters["client_id"] == nil)
    }

    @Test func clientSecretPostPutsTheSecretInTheBody() async throws {
        let transport = ScriptedTransport { _ in .json(200, #"{"access_token":"at","token_type":"Bearer"}"#) }
        _ = try await client(secret: "s", method: .clientSecretPost, transport).exchange(
            code: "c", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
        let request = try #require(transport.requests.first)
        #expect(request.headerFields[.authorization] == nil)
        #expect(request.formParameters["client_id"] == "cli ent")
        #expect(request.formParameters["client_secret"] == "s")
    }

    @Test func refreshKeepsARotatedRefreshTokenAndTheOldOneWhenNoneComes() async throws {
        let answers = ManualQueue([
            #"{"access_token":"at2","token_type":"Bearer","refresh_token":"rt2","scope":"read write"}"#,
            #"{"access_token":"at3","token_type":"Bearer"}"#,
        ])
        let transport = ScriptedTransport { _ in .json(200, answers.next()) }
        let client = try client(transport)
        let first = TokenSet(accessToken: "at1", refreshToken: "rt1", scopes: ["read"])
        let second = try await client.refresh(first)
        #expect(second.refreshToken == "rt2")
        #expect(second.scopes == ["read", "write"])
        #expect(transport.requests[0].formParameters["refresh_token"] == "rt1")
        #expect(transport.requests[0].formParameters["grant_type"] == "refresh_token")
        let third = try await client.refresh(second)
        #expect(third.accessToken == "at3")
        #expect(third.refreshToken == "rt2")
        #expect(third.scopes == ["read", "write"])
    }

    @Test func anRFC6749ErrorIsTyped() async throws {
        let transport = ScriptedTransport { _ in
            .json(400, #"{"error":"invalid_grant","error_description":"Code expired","error_uri":"http://insecure"}"#)
        }
        do {
            _ = try await client(transport).refresh(TokenSet(accessToken: "a", refreshToken: "r"))
            Issue.record("no error")
        } catch {
            #expect(error.code == .server)
            #expect(error.serverError?.code == .invalidGrant)
            #expect(error.serverError?.safeDescription == "Code expired")
            #expect(error.serverError?.uri == nil, "only https error URIs are kept")
            #expect(error.serverError?.endpoint == .token)
        }
    }

    /// Found by fuzzing (`FuzzEndpointResponse`): the `error` member was printed as sent. The
    /// last body is the fuzzer's input (`Fuzz/Corpus/FuzzEndpointResponse/crash-escape-in-error-code`).
    @Test func aSecretOrControlCharacterInTheErrorCodeIsNotPrinted() async throws {
        let code = "SplxlOBeZQQYbYS6WxSbIA"
        for body in [
            #"{"error":"\#(code)"}"#, #"{"error":"invalid_grant\u001b[2J","error_description":"x"}"#,
            #"{"error":"invalid_grzv3JOkF0XG5Qx2TlKWIA\u001b[31m revoked"}"#,
        ] {
            let transport = ScriptedTransport { _ in .json(400, body) }
            do {
                _ = try await client(transport).exchange(
                    code: code, verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
                Issue.record("no error")
            } catch {
                #expect(error.code == .server)
                #expect(!error.description.contains(code), "the code sent is not quoted back")
                #expect(!error.description.unicodeScalars.contains { $0.properties.generalCategory == .control })
            }
        }
    }

    @Test func anErrorSentWithStatus200IsStillAnError() async throws {
        let transport = ScriptedTransport { _ in .json(200, #"{"error":"bad_verification_code"}"#) }
        do {
            _ = try await client(transport).exchange(
                code: "c", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
            Issue.record("no error")
        } catch {
            #expect(error.code == .server)
            #expect(error.serverError?.code.rawValue == "bad_verification_code")
        }
    }

    @Test(arguments: [
        (200, "<html>oops</html>", OAuthError.Code.invalidResponse),
        (200, #"{"token_type":"Bearer"}"#, OAuthError.Code.invalidResponse),
        (200, #"{"access_token":"a","token_type":"Bearer""#, OAuthError.Code.invalidResponse),
        (502, "Bad gateway", OAuthError.Code.unexpectedStatus),
    ])
    func unusableAnswersHaveTheirOwnErrors(_ status: Int, _ body: String, _ code: OAuthError.Code) async throws {
        let transport = ScriptedTransport { _ in .json(status, body) }
        do {
            _ = try await client(transport).exchange(
                code: "c", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
            Issue.record("no error")
        } catch {
            #expect(error.code == code)
            #expect(!error.message.contains(body), "the body is never quoted")
        }
    }

    @Test func transportFailuresKeepTheirKind() async throws {
        for (transportCode, code) in [
            (HTTPTransportError.Code.timedOut, OAuthError.Code.timedOut),
            (.responseTooLarge, .responseTooLarge), (.connectionFailed, .transportFailed),
        ] {
            let transport = ScriptedTransport { _ throws(HTTPTransportError) in
                throw HTTPTransportError(code: transportCode, message: "x")
            }
            do {
                _ = try await client(transport).refresh(TokenSet(accessToken: "a", refreshToken: "r"))
                Issue.record("no error")
            } catch {
                #expect(error.code == code)
                #expect(error.transportError?.code == transportCode)
            }
        }
    }

    @Test func revocationRevokesTheRefreshTokenThenTheAccessToken() async throws {
        let transport = ScriptedTransport { _ in HTTPTransportResponse(status: 200) }
        try await client(transport).revoke(TokenSet(accessToken: "at", refreshToken: "rt"))
        #expect(transport.requests.map(\.url.path) == ["/revoke", "/revoke"])
        #expect(transport.requests[0].formParameters["token"] == "rt")
        #expect(transport.requests[0].formParameters["token_type_hint"] == "refresh_token")
        #expect(transport.requests[1].formParameters["token"] == "at")
        #expect(transport.requests[1].formParameters["token_type_hint"] == "access_token")
    }

    @Test func theAccessTokenIsRevokedEvenWhenRevokingTheRefreshTokenFails() async throws {
        let transport = ScriptedTransport { request in
            request.formParameters["token"] == "rt"
                ? .json(503, #"{"error":"temporarily_unavailable"}"#) : HTTPTransportResponse(status: 200)
        }
        do {
            try await client(transport).revoke(TokenSet(accessToken: "at", refreshToken: "rt"))
            Issue.record("the failure to revoke the refresh token was not reported")
        } catch {
            #expect(error.serverError?.code == .temporarilyUnavailable)
        }
        #expect(transport.requests.compactMap { $0.formParameters["token"] } == ["rt", "at"])
    }

    @Test func noRevocationEndpointIsSaidPlainly() async throws {
        let transport = ScriptedTransport { _ in HTTPTransportResponse(status: 200) }
        let client = try OAuthClient(
            configuration: ClientConfiguration(
                endpoints: .init(
                    authorization: URL(string: "https://as.example/a"), token: URL(string: "https://as.example/t")),
                clientID: "c"), transport: transport)
        do {
            try await client.revoke(TokenSet(accessToken: "at"))
            Issue.record("no error")
        } catch {
            #expect(error.code == .endpointUnavailable)
            #expect(transport.requests.isEmpty)
        }
    }

    @Test func tokenSetsNeverPrintTheirTokens() {
        let tokens = TokenSet(
            accessToken: "ACCESS-VALUE", refreshToken: "REFRESH-VALUE", idToken: "ID-VALUE", expiresAt: Date(),
            scopes: ["a"])
        for text in [tokens.description, tokens.debugDescription, "\(tokens)", String(reflecting: tokens)] {
            #expect(!text.contains("ACCESS-VALUE") && !text.contains("REFRESH-VALUE") && !text.contains("ID-VALUE"))
        }
    }
}

/// Answers handed out in order, the last one repeated.
final class ManualQueue: Sendable {
    private let answers: Locked<[String]>
    init(_ answers: [String]) { self.answers = Locked(answers) }
    func next() -> String {
        answers.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
    }
}
