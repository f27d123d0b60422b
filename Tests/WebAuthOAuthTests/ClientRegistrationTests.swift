// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing

@testable import WebAuthOAuth

/// Dynamic client registration (RFC 7591) and its management (RFC 7592) against a scripted
/// provider: what is sent, what is accepted, and what is refused.
@Suite struct ClientRegistrationTests {
    static let issuer = URL(string: "https://id.example.com")!
    static let endpoint = "https://id.example.com/register"
    static let initialToken = "initial-access-token-0123456789"
    static let registrationToken = "registration-access-token-abcdef"
    static let secret = "client-secret-value-9876543210"

    static func metadata(registration: Bool = true) -> String {
        """
        {"issuer":"https://id.example.com","authorization_endpoint":"https://id.example.com/authorize",\
        "token_endpoint":"https://id.example.com/token"\(registration ? #","registration_endpoint":"\#(endpoint)""# : "")}
        """
    }

    /// A registrar whose provider answers discovery, then the registration with `answer`.
    static func registrar(
        registration: Bool = true, _ answer: @escaping @Sendable (HTTPTransportRequest) -> HTTPTransportResponse
    ) -> (ClientRegistrar, ScriptedTransport) {
        let transport = ScriptedTransport { request in
            if request.url.path.hasPrefix("/.well-known/") { return .json(200, metadata(registration: registration)) }
            return answer(request)
        }
        return (ClientRegistrar(issuer: issuer, transport: transport), transport)
    }

    static let request = ClientRegistrationRequest(
        redirectURIs: [URL(string: "http://127.0.0.1/callback")!], clientName: "webauth", scopes: ["openid"])

    static func answer(_ members: String, status: Int = 201) -> HTTPTransportResponse {
        .json(status, "{" + members + "}")
    }

    static let manageable =
        #""client_id":"c-1","registration_access_token":"\#(registrationToken)","registration_client_uri":"https://id.example.com/register/c-1""#

    @Test func registrationPostsANativePublicClientAsJSON() async throws {
        let (registrar, transport) = Self.registrar { _ in Self.answer(Self.manageable) }
        _ = try await registrar.register(Self.request)
        let post = try #require(transport.requests.last)
        #expect(post.method == "POST")
        #expect(post.url.absoluteString == Self.endpoint)
        #expect(post.headerFields[.contentType] == "application/json")
        #expect(post.headerFields[.authorization] == nil)
        let body = try #require(JSONSerialization.jsonObject(with: post.body ?? Data()) as? [String: Any])
        #expect(body["application_type"] as? String == "native")
        #expect(body["redirect_uris"] as? [String] == ["http://127.0.0.1/callback"])
        #expect(body["token_endpoint_auth_method"] as? String == "none")
        #expect(body["grant_types"] as? [String] == ["authorization_code", "refresh_token"])
        #expect(body["response_types"] as? [String] == ["code"])
        #expect(body["client_name"] as? String == "webauth")
        #expect(body["scope"] as? String == "openid")
    }

    @Test func anInitialAccessTokenGoesAsABearerToken() async throws {
        let (registrar, transport) = Self.registrar { _ in Self.answer(Self.manageable) }
        _ = try await registrar.register(Self.request, initialAccessToken: Self.initialToken)
        #expect(transport.requests.last?.headerFields[.authorization] == "Bearer \(Self.initialToken)")
    }

    @Test func theAnswerBecomesARegistrationThatHidesItsSecrets() async throws {
        let (registrar, _) = Self.registrar { _ in
            Self.answer(
                Self.manageable
                    + #","client_secret":"\#(Self.secret)","client_secret_expires_at":0,"client_id_issued_at":1800000000,"token_endpoint_auth_method":"client_secret_basic""#
            )
        }
        let registration = try await registrar.register(Self.request)
        #expect(registration.clientID == "c-1")
        #expect(registration.clientSecret == Self.secret)
        #expect(registration.clientSecretExpiresAt == nil)
        #expect(registration.clientIDIssuedAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(registration.registrationAccessToken == Self.registrationToken)
        #expect(registration.registrationClientURI?.absoluteString == "https://id.example.com/register/c-1")
        #expect(registration.registrationEndpoint?.absoluteString == Self.endpoint)
        #expect(registration.isManageable)
        var dumped = ""
        dump(registration, to: &dumped)
        for shown in ["\(registration)", String(reflecting: registration), dumped] {
            #expect(!shown.contains(Self.secret))
            #expect(!shown.contains(Self.registrationToken))
        }
        let configuration = try registration.configuration(
            from: ClientConfiguration(issuer: Self.issuer, clientID: "placeholder", scopes: ["openid"]))
        #expect(configuration.clientID == "c-1")
        #expect(configuration.clientSecret == Self.secret)
        #expect(configuration.effectiveClientAuthentication == .clientSecretBasic)
    }

    @Test func aRegistrationSurvivesTheTokenStoreFormat() throws {
        let registration = ClientRegistration(
            clientID: "c-1", clientSecret: Self.secret, registrationAccessToken: Self.registrationToken,
            registrationClientURI: URL(string: "https://id.example.com/register/c-1"),
            tokenEndpointAuthMethod: ClientAuthenticationMethod.none,
            redirectURIs: [URL(string: "http://127.0.0.1/callback")!])
        let data = try JSONEncoder().encode(registration)
        #expect(try JSONDecoder().decode(ClientRegistration.self, from: data) == registration)
    }

    @Test(
        arguments: [
            (
                "no client_id",
                #""registration_access_token":"t-123456789","registration_client_uri":"https://id.example.com/r""#
            ),
            ("an empty client_id", #""client_id":"""#),
            ("a client_id with a control character", #""client_id":"c\u001b[2J""#),
            (
                "a management URI on another origin",
                #""client_id":"c","registration_access_token":"t-123456789","registration_client_uri":"https://attacker.example/r""#
            ),
            (
                "a management URI over plain http",
                #""client_id":"c","registration_access_token":"t-123456789","registration_client_uri":"http://id.example.com/r""#
            ),
            (
                "a registration access token without a URI",
                #""client_id":"c","registration_access_token":"t-123456789""#
            ),
            (
                "a URI without a registration access token",
                #""client_id":"c","registration_client_uri":"https://id.example.com/r""#
            ),
            (
                "a registration access token that could split a header",
                #""client_id":"c","registration_access_token":"t\r\nX: 1","registration_client_uri":"https://id.example.com/r""#
            ),
            (
                "a client secret that has expired",
                #""client_id":"c","client_secret":"s-123456789","client_secret_expires_at":1000"#
            ),
            ("not a JSON object", #""client_id":["c"]"#),
        ])
    func anAnswerThatFailsTheChecksIsRefused(_ case: (String, String)) async throws {
        let (registrar, _) = Self.registrar { _ in Self.answer(`case`.1) }
        let error = await #expect(throws: OAuthError.self, "\(`case`.0)") {
            try await registrar.register(Self.request)
        }
        #expect(error?.code == .invalidResponse, "\(`case`.0): \(error?.message ?? "")")
    }

    // MARK: Lenient where the spec lets the client be

    @Test func informationalFieldsThatAreMalformedAreLeftOutWithANote() async throws {
        let (registrar, transport) = Self.registrar { _ in
            Self.answer(
                Self.manageable
                    + #","client_id_issued_at":"1795870047","client_secret_expires_at":"soon","grant_types":"code""#)
        }
        let registration = try await registrar.register(Self.request)
        #expect(registration.clientID == "c-1")
        #expect(registration.clientIDIssuedAt == Date(timeIntervalSince1970: 1_795_870_047))
        #expect(registration.clientSecretExpiresAt == nil)
        #expect(registration.notes.count == 2, "\(registration.notes)")
        #expect(registration.notes.contains { $0.contains("client_id_issued_at is a string") })
        #expect(registration.notes.contains { $0.contains("client_secret_expires_at is not a number") })
        #expect(!transport.requests.contains { $0.method == "DELETE" })
        // Notes are what the answer held, not what the registration keeps.
        let stored = try JSONDecoder().decode(ClientRegistration.self, from: JSONEncoder().encode(registration))
        #expect(stored.notes.isEmpty)
    }

    @Test func anUnusableAnswerDeletesTheClientItMadeAndSaysSo() async throws {
        let (registrar, transport) = Self.registrar { request in
            request.method == "DELETE"
                ? HTTPTransportResponse(status: 204, body: Data())
                : Self.answer(Self.manageable + #","redirect_uris":"http://127.0.0.1/callback""#)
        }
        let error = await #expect(throws: OAuthError.self) { try await registrar.register(Self.request) }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains("redirect_uris is not a list of strings") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("client c-1 was deleted at the provider") == true, "\(error?.message ?? "")")
        let delete = try #require(transport.requests.last)
        #expect(delete.method == "DELETE")
        #expect(delete.url.absoluteString == "https://id.example.com/register/c-1")
        #expect(delete.headerFields[.authorization] == "Bearer \(Self.registrationToken)")
        #expect(!"\(String(describing: error))".contains(Self.registrationToken))
    }

    @Test func anUnusableAnswerWithoutManagementNamesTheClient() async throws {
        let (registrar, transport) = Self.registrar { _ in
            Self.answer(#""client_id":"c-9","token_endpoint_auth_method":"client_secret_basic""#)
        }
        let error = await #expect(throws: OAuthError.self) { try await registrar.register(Self.request) }
        let message = error?.message ?? ""
        #expect(message.contains("client_secret_basic, not none as asked"), "\(message)")
        #expect(message.contains("sent no client_secret"), "\(message)")
        #expect(message.contains("client c-9"), "\(message)")
        #expect(message.contains("administrator"), "\(message)")
        #expect(!transport.requests.contains { $0.method == "DELETE" })
    }

    @Test func aManagementURIOnAnotherOriginIsNeverSentTheToken() async throws {
        let (registrar, transport) = Self.registrar { _ in
            Self.answer(
                #""client_id":"c","registration_access_token":"t-123456789","registration_client_uri":"https://attacker.example/r""#
            )
        }
        let error = await #expect(throws: OAuthError.self) { try await registrar.register(Self.request) }
        #expect(error?.message.contains("client c ") == true, "\(error?.message ?? "")")
        #expect(!transport.requests.contains { $0.method == "DELETE" })
    }

    @Test func anotherMethodIsFollowedWhenTheAnswerCarriesWhatItNeeds() async throws {
        let (registrar, _) = Self.registrar { _ in
            Self.answer(
                Self.manageable
                    + #","client_secret":"\#(Self.secret)","token_endpoint_auth_method":"client_secret_post""#)
        }
        let registration = try await registrar.register(Self.request)
        #expect(registration.tokenEndpointAuthMethod == .clientSecretPost)
        #expect(registration.notes.contains { $0.contains("client_secret_post, not none as asked") })
        let configuration = try registration.configuration(
            from: ClientConfiguration(issuer: Self.issuer, clientID: "placeholder", scopes: ["openid"]))
        #expect(configuration.effectiveClientAuthentication == .clientSecretPost)
    }

    @Test func aPrivateKeyJWTRegistrationSendsThePublicKey() async throws {
        let (registrar, transport) = Self.registrar { _ in
            Self.answer(Self.manageable + #","token_endpoint_auth_method":"private_key_jwt""#)
        }
        var request = Self.request
        request.tokenEndpointAuthMethod = .privateKeyJWT
        request.publicKeys = [["kty": "EC", "crv": "P-256", "x": "x-value", "y": "y-value", "kid": "k1"]]
        let registration = try await registrar.register(request)
        #expect(registration.tokenEndpointAuthMethod == .privateKeyJWT)
        let post = try #require(transport.requests.last { $0.method == "POST" })
        let body = try #require(JSONSerialization.jsonObject(with: post.body ?? Data()) as? [String: Any])
        let keys = try #require((body["jwks"] as? [String: Any])?["keys"] as? [[String: String]])
        #expect(keys.first?["kid"] == "k1")
        #expect(body["token_endpoint_auth_method"] as? String == "private_key_jwt")
    }

    @Test func aProviderWithoutARegistrationEndpointIsTold() async throws {
        let (registrar, transport) = Self.registrar(registration: false) { _ in Self.answer(Self.manageable) }
        let error = await #expect(throws: OAuthError.self) { try await registrar.register(Self.request) }
        #expect(error?.code == .endpointUnavailable)
        #expect(!transport.requests.contains { $0.method == "POST" })
    }

    @Test func unauthorizedWithoutAnInitialAccessTokenMeansOneIsRequired() async throws {
        let (registrar, _) = Self.registrar { _ in HTTPTransportResponse(status: 401, body: Data()) }
        let error = await #expect(throws: OAuthError.self) { try await registrar.register(Self.request) }
        #expect(error?.code == .initialAccessTokenRequired)
    }

    @Test func unauthorizedWithAnInitialAccessTokenMeansItWasRefused() async throws {
        let (registrar, _) = Self.registrar { _ in
            var response = HTTPTransportResponse.json(
                401, #"{"error":"invalid_token","error_description":"token \#(Self.initialToken) is unknown"}"#)
            response.headerFields[.wwwAuthenticate] = #"Bearer error="invalid_token""#
            return response
        }
        let error = await #expect(throws: OAuthError.self) {
            try await registrar.register(Self.request, initialAccessToken: Self.initialToken)
        }
        #expect(error?.code == .initialAccessTokenRefused)
        #expect(error?.serverError?.code == "invalid_token")
        #expect(!"\(String(describing: error))".contains(Self.initialToken))
        #expect(error?.serverError?.rawDescription?.contains(Self.initialToken) == false)
    }

    @Test(arguments: [OAuthServerError.Code.invalidRedirectURI, .invalidClientMetadata])
    func aRefusedRegistrationCarriesTheProvidersErrorCode(_ code: OAuthServerError.Code) async throws {
        let (registrar, _) = Self.registrar { _ in
            .json(400, #"{"error":"\#(code.rawValue)","error_description":"no"}"#)
        }
        let error = await #expect(throws: OAuthError.self) { try await registrar.register(Self.request) }
        #expect(error?.code == .server)
        #expect(error?.serverError?.code == code)
        #expect(error?.serverError?.endpoint == .registration)
    }

    @Test func anInitialAccessTokenThatCouldSplitAHeaderIsNotSent() async throws {
        let (registrar, transport) = Self.registrar { _ in Self.answer(Self.manageable) }
        let error = await #expect(throws: OAuthError.self) {
            try await registrar.register(Self.request, initialAccessToken: "abc\r\nX-Injected: 1")
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(transport.requests.isEmpty)
    }

    // MARK: RFC 7592

    static let stored = ClientRegistration(
        clientID: "c-1", registrationAccessToken: registrationToken,
        registrationClientURI: URL(string: "https://id.example.com/register/c-1"),
        registrationEndpoint: URL(string: endpoint))

    @Test func deletingSendsDELETEWithTheRegistrationAccessToken() async throws {
        let (registrar, transport) = Self.registrar { _ in HTTPTransportResponse(status: 204, body: Data()) }
        try await registrar.delete(Self.stored)
        let request = try #require(transport.requests.last)
        #expect(request.method == "DELETE")
        #expect(request.url.absoluteString == "https://id.example.com/register/c-1")
        #expect(request.headerFields[.authorization] == "Bearer \(Self.registrationToken)")
        #expect(transport.requests.count == 1, "no discovery is needed to delete")
    }

    @Test(arguments: [
        (401, OAuthError.Code.registrationUnknown), (404, .registrationUnknown), (405, .endpointUnavailable),
    ])
    func aDeletionTheProviderRefusesSaysWhy(_ answer: (Int, OAuthError.Code)) async throws {
        let (registrar, _) = Self.registrar { _ in HTTPTransportResponse(status: answer.0, body: Data()) }
        let error = await #expect(throws: OAuthError.self) { try await registrar.delete(Self.stored) }
        #expect(error?.code == answer.1)
    }

    @Test func aRegistrationWithoutManagementCannotBeDeleted() async throws {
        let (registrar, transport) = Self.registrar { _ in HTTPTransportResponse(status: 204, body: Data()) }
        let error = await #expect(throws: OAuthError.self) {
            try await registrar.delete(ClientRegistration(clientID: "c-1"))
        }
        #expect(error?.code == .endpointUnavailable)
        #expect(transport.requests.isEmpty)
    }

    @Test func readingKeepsANewRegistrationAccessTokenAndRefusesAnotherClient() async throws {
        let (registrar, _) = Self.registrar { _ in
            Self.answer(
                #""client_id":"c-1","registration_access_token":"rotated-token-123456","registration_client_uri":"https://id.example.com/register/c-1""#,
                status: 200)
        }
        let read = try await registrar.read(Self.stored)
        #expect(read.registrationAccessToken == "rotated-token-123456")
        #expect(read.registrationEndpoint?.absoluteString == Self.endpoint)

        let (other, _) = Self.registrar { _ in Self.answer(#""client_id":"c-2""#, status: 200) }
        let error = await #expect(throws: OAuthError.self) { try await other.read(Self.stored) }
        #expect(error?.code == .invalidResponse)
    }
}
