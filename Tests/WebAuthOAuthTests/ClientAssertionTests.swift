// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import Testing
import WebAuthCore

@testable import WebAuthOAuth

/// `private_key_jwt` and `client_secret_jwt` (RFC 7523 §2.2, OpenID Connect Core §9): what the
/// assertion carries, how it is signed, how its key is read, and that none of it is ever shown.
@Suite("Client assertions")
struct ClientAssertionTests {
    static let endpoints = ClientConfiguration.Endpoints(
        authorization: URL(string: "https://as.example/authorize"), token: URL(string: "https://as.example/token"),
        revocation: URL(string: "https://as.example/revoke"))

    /// A decoded compact JWS.
    struct Decoded {
        var header: [String: Any]
        var claims: [String: Any]
        var signingInput: Data
        var signature: Data

        init(_ compact: String) throws {
            let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
            try #require(parts.count == 3)
            let headerData = try #require(Data(base64URLEncoded: parts[0]))
            let claimsData = try #require(Data(base64URLEncoded: parts[1]))
            header = try #require(JSONSerialization.jsonObject(with: headerData) as? [String: Any])
            claims = try #require(JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
            signingInput = Data((parts[0] + "." + parts[1]).utf8)
            signature = try #require(Data(base64URLEncoded: parts[2]))
        }
    }

    private static let tokenAnswer =
        #"{"access_token":"at","token_type":"Bearer","expires_in":60,"refresh_token":"rt"}"#

    private func exchange(
        _ configuration: ClientConfiguration, clock: ManualClock = ManualClock(),
        metadata: String? = nil
    ) async throws -> [HTTPTransportRequest] {
        let transport = ScriptedTransport { request in
            if request.url.path.contains(".well-known"), let metadata { return .json(200, metadata) }
            return .json(200, Self.tokenAnswer)
        }
        let client = try OAuthClient(configuration: configuration, transport: transport, clock: clock.oauthClock)
        _ = try await client.exchange(
            code: "c0de", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
        return transport.requests.filter { !$0.url.path.contains(".well-known") }
    }

    @Test func aPrivateKeyJWTAssertionCarriesTheClaimsAndVerifiesWithThePublicKey() async throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try ClientAssertionKey(pem: privateKey.pemRepresentation, keyID: "key-1")
        let clock = ManualClock()
        let metadata = #"""
            {"issuer":"https://as.example","authorization_endpoint":"https://as.example/authorize",
             "token_endpoint":"https://as.example/token","response_types_supported":["code"]}
            """#
        let requests = try await exchange(
            ClientConfiguration(
                issuer: URL(string: "https://as.example"), clientID: "cli", scopes: ["read"], clientKey: key),
            clock: clock, metadata: metadata)
        let request = try #require(requests.first)
        let form = request.formParameters
        #expect(request.headerFields[.authorization] == nil)
        #expect(form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        #expect(form["client_id"] == "cli")
        #expect(form["client_secret"] == nil)
        let jwt = try Decoded(try #require(form["client_assertion"]))
        #expect(jwt.header["alg"] as? String == "ES256")
        #expect(jwt.header["kid"] as? String == "key-1")
        #expect(jwt.claims["iss"] as? String == "cli")
        #expect(jwt.claims["sub"] as? String == "cli")
        #expect(jwt.claims["aud"] as? String == "https://as.example")
        let iat = try #require(jwt.claims["iat"] as? Int)
        let exp = try #require(jwt.claims["exp"] as? Int)
        #expect(iat == Int(clock.now.timeIntervalSince1970))
        #expect(exp == iat + 60)
        #expect((jwt.claims["jti"] as? String)?.count == 43)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: jwt.signature)
        #expect(privateKey.publicKey.isValidSignature(signature, for: jwt.signingInput))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(signature, for: jwt.signingInput))
    }

    @Test func everyRequestGetsAFreshAssertion() async throws {
        let transport = ScriptedTransport { _ in .json(200, Self.tokenAnswer) }
        let client = try OAuthClient(
            configuration: ClientConfiguration(
                endpoints: Self.endpoints, clientID: "cli",
                clientKey: try ClientAssertionKey(
                    pem: P256.Signing.PrivateKey().pemRepresentation)),
            transport: transport, clock: ManualClock().oauthClock)
        let tokens = try await client.exchange(
            code: "c", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
        _ = try await client.refresh(tokens)
        try await client.revoke(tokens)
        let assertions = transport.requests.compactMap { $0.formParameters["client_assertion"] }
        #expect(assertions.count == 4)
        let identifiers = try assertions.map { try #require(try Decoded($0).claims["jti"] as? String) }
        #expect(Set(identifiers).count == 4)
    }

    @Test func theAudienceIsTheTokenEndpointWhenAskedOrWhenNoIssuerIsKnown() async throws {
        let key = try ClientAssertionKey(pem: P256.Signing.PrivateKey().pemRepresentation)
        for (audience, expected) in [
            (ClientAssertionAudience.issuer, "https://as.example/token"),
            (.tokenEndpoint, "https://as.example/token"),
            (.url(URL(string: "https://as.example/custom")!), "https://as.example/custom"),
        ] {
            let requests = try await exchange(
                ClientConfiguration(
                    endpoints: Self.endpoints, clientID: "cli", clientKey: key, clientAssertionAudience: audience))
            let jwt = try Decoded(try #require(requests.first?.formParameters["client_assertion"]))
            #expect(jwt.claims["aud"] as? String == expected, "\(audience)")
        }
    }

    @Test(arguments: [ClientAssertionKey.Algorithm.rs256, .ps256])
    func anRSAKeySignsWithRS256OrPS256(_ algorithm: ClientAssertionKey.Algorithm) throws {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let key = try ClientAssertionKey(pem: privateKey.pemRepresentation, algorithm: algorithm)
        #expect(key.publicJWK["kty"] == "RSA")
        #expect(key.publicJWK["alg"] == algorithm.rawValue)
        let jwt = try Decoded(
            try ClientAssertion(clientID: "cli", audience: "https://as.example").signed(with: key))
        #expect(jwt.header["alg"] as? String == algorithm.rawValue)
        let padding: _RSA.Signing.Padding = algorithm == .ps256 ? .PSS : .insecurePKCS1v1_5
        let other: _RSA.Signing.Padding = algorithm == .ps256 ? .insecurePKCS1v1_5 : .PSS
        let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature)
        let digest = SHA256.hash(data: jwt.signingInput)
        #expect(privateKey.publicKey.isValidSignature(signature, for: digest, padding: padding))
        #expect(!privateKey.publicKey.isValidSignature(signature, for: digest, padding: other))
        // The JWK's modulus is the key's: n and e read back to the same public key.
        let n = try #require(key.publicJWK["n"].flatMap { Data(base64URLEncoded: $0) })
        let e = try #require(key.publicJWK["e"].flatMap { Data(base64URLEncoded: $0) })
        let rebuilt = try _RSA.Signing.PublicKey(n: n, e: e)
        #expect(rebuilt.isValidSignature(signature, for: digest, padding: padding))
    }

    @Test func aClientSecretJWTAssertionIsHS256WithTheSecretAndCarriesNoSecret() async throws {
        let secret = "a-long-client-secret-of-32-bytes!"
        let requests = try await exchange(
            ClientConfiguration(
                endpoints: Self.endpoints, clientID: "cli", clientSecret: secret, clientAuthentication: .clientSecretJWT
            ))
        let request = try #require(requests.first)
        #expect(request.headerFields[.authorization] == nil)
        #expect(request.formParameters["client_secret"] == nil)
        #expect(!String(decoding: request.body ?? Data(), as: UTF8.self).contains(secret))
        let jwt = try Decoded(try #require(request.formParameters["client_assertion"]))
        #expect(jwt.header["alg"] as? String == "HS256")
        #expect(jwt.header["kid"] == nil)
        let mac = HMAC<SHA256>.authenticationCode(for: jwt.signingInput, using: SymmetricKey(data: Data(secret.utf8)))
        #expect(Data(mac) == jwt.signature)
        #expect(jwt.claims["iss"] as? String == "cli" && jwt.claims["sub"] as? String == "cli")
    }

    @Test func aJWKKeyKeepsItsKeyIDAndAlgorithm() throws {
        let privateKey = P256.Signing.PrivateKey()
        let point = privateKey.publicKey.x963Representation
        let jwk: [String: String] = [
            "kty": "EC", "crv": "P-256", "kid": "from-jwk", "alg": "ES256",
            "x": Data(point.dropFirst().prefix(32)).base64URLEncodedString(),
            "y": Data(point.suffix(32)).base64URLEncodedString(),
            "d": privateKey.rawRepresentation.base64URLEncodedString(),
        ]
        let key = try ClientAssertionKey(jwk: try JSONEncoder().encode(jwk))
        #expect(key.keyID == "from-jwk")
        #expect(key.algorithm == .es256)
        #expect(key.publicJWK["d"] == nil)
        #expect(key.publicJWK["x"] == jwk["x"])
        // A set with that one key reads the same.
        let set = try JSONSerialization.data(withJSONObject: ["keys": [jwk]])
        #expect(try ClientAssertionKey(jwk: set) == key)
    }

    @Test func keysThatCannotSignAClientAssertionAreRefusedWithoutQuotingThem() throws {
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        let p256 = P256.Signing.PrivateKey()
        let publicOnly = p256.publicKey.pemRepresentation
        let point = p256.publicKey.x963Representation
        let publicJWK = try JSONEncoder().encode([
            "kty": "EC", "crv": "P-256", "x": Data(point.dropFirst().prefix(32)).base64URLEncodedString(),
            "y": Data(point.suffix(32)).base64URLEncodedString(),
        ])
        let octJWK = try JSONEncoder().encode(["kty": "oct", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQ"])
        func refusal(_ make: () throws -> ClientAssertionKey) -> OAuthError? {
            do {
                _ = try make()
                return nil
            } catch {
                return error as? OAuthError
            }
        }
        let refusals = [
            refusal { try ClientAssertionKey(pem: p384) },
            refusal { try ClientAssertionKey(pem: publicOnly) },
            refusal { try ClientAssertionKey(pem: p256.pemRepresentation, algorithm: .rs256) },
            refusal { try ClientAssertionKey(pem: p256.pemRepresentation, algorithm: .hs256) },
            refusal { try ClientAssertionKey(jwk: publicJWK) },
            refusal { try ClientAssertionKey(jwk: octJWK) },
            refusal { try ClientAssertionKey(pem: "not a key") },
        ]
        for (index, error) in refusals.enumerated() {
            let error = try #require(error, "unusable key \(index) was accepted")
            #expect(error.code == .invalidConfiguration)
            #expect(!error.message.contains("PRIVATE KEY") && !error.message.contains("MII"), "\(error.message)")
        }
        // An RSA PEM key asked for ES256 is refused too.
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        #expect(throws: OAuthError.self) { try ClientAssertionKey(pem: rsa, algorithm: .es256) }
    }

    /// As a `--config` file holding a secret: a key file group or others may read or write is
    /// refused, with the `chmod` that fixes it.
    @Test(arguments: [(0o600, true), (0o400, true), (0o640, false), (0o604, false), (0o644, false), (0o620, false)])
    func aKeyFileMustBeReadableByItsOwnerAlone(_ mode: Int, _ accepted: Bool) throws {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webauth-key-\(UUID()).pem")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(pem.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
        do {
            let key = try ClientAssertionKey.load(from: file)
            #expect(accepted, "mode \(String(mode, radix: 8)) was accepted")
            #expect(key.algorithm == .es256)
        } catch {
            #expect(!accepted, "mode \(String(mode, radix: 8)) was refused: \(error)")
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("chmod 600 '\(file.path)'"), "\(error.message)")
            #expect(error.message.contains("private key"))
            #expect(!error.message.contains("PRIVATE KEY"))
        }
        // The same check when a client is made from a configuration naming the file.
        let configuration = ClientConfiguration(endpoints: Self.endpoints, clientID: "cli", clientKeyFile: file)
        #expect(configuration.effectiveClientAuthentication == .privateKeyJWT)
        if accepted {
            _ = try OAuthClient(configuration: configuration)
        } else {
            #expect(throws: OAuthError.self) { try OAuthClient(configuration: configuration) }
        }
    }

    @Test func aStoredConfigurationNamesTheKeyFileButNeverHoldsTheKey() throws {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let key = try ClientAssertionKey(pem: pem)
        let configuration = ClientConfiguration(
            endpoints: Self.endpoints, clientID: "cli", clientAuthentication: .privateKeyJWT, clientKey: key,
            clientKeyFile: URL(fileURLWithPath: "/home/me/key.pem"), clientAssertionAudience: .tokenEndpoint)
        let json = String(decoding: try JSONEncoder().encode(configuration), as: UTF8.self)
        #expect(
            json.contains(#""clientKeyFile":"\/home\/me\/key.pem""#)
                || json.contains(#""clientKeyFile":"/home/me/key.pem""#))
        #expect(json.contains("token-endpoint"))
        #expect(!json.contains(key.thumbprint) && !json.contains("\"d\""))
        let decoded = try JSONDecoder().decode(ClientConfiguration.self, from: Data(json.utf8))
        #expect(decoded.clientKeyFile?.path == "/home/me/key.pem")
        #expect(decoded.clientAssertionAudience == .tokenEndpoint)
        #expect(decoded.clientAuthentication == .privateKeyJWT)
        #expect(decoded.clientKey == nil)
    }

    @Test func printingAKeyOrAConfigurationNeverShowsTheKey() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try ClientAssertionKey(pem: privateKey.pemRepresentation, keyID: "k")
        let configuration = ClientConfiguration(endpoints: Self.endpoints, clientID: "cli", clientKey: key)
        let d = privateKey.rawRepresentation.base64URLEncodedString()
        var dumped = ""
        dump(configuration, to: &dumped)
        var dumpedKey = ""
        dump(key, to: &dumpedKey)
        for text in [
            "\(key)", String(reflecting: key), "\(configuration)", String(reflecting: configuration), dumped, dumpedKey,
        ] {
            #expect(!text.contains(d) && !text.contains("PRIVATE KEY"), "\(text)")
        }
        #expect("\(key)".contains(key.thumbprint))
    }

    @Test func anAssertionQuotedBackByTheServerIsWithheldFromTheError() async throws {
        let transport = ScriptedTransport { request in
            let assertion = request.formParameters["client_assertion"] ?? ""
            return .json(401, #"{"error":"invalid_client","error_description":"bad assertion \#(assertion)"}"#)
        }
        let client = try OAuthClient(
            configuration: ClientConfiguration(
                endpoints: Self.endpoints, clientID: "cli",
                clientKey: try ClientAssertionKey(pem: P256.Signing.PrivateKey().pemRepresentation)),
            transport: transport)
        do {
            _ = try await client.exchange(
                code: "c", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
            Issue.record("the refusal was not an error")
        } catch {
            let assertion = try #require(transport.requests.first?.formParameters["client_assertion"])
            #expect(error.serverError?.code == .invalidClient)
            #expect(!"\(error)".contains(assertion) && !String(reflecting: error).contains(assertion))
            #expect("\(error)".contains("[withheld]"))
        }
    }

    @Test func aConfigurationSaysWhatAJWTMethodIsMissing() {
        let missingKey = ClientConfiguration(
            endpoints: Self.endpoints, clientID: "c", clientAuthentication: .privateKeyJWT)
        #expect(throws: OAuthError.self) { try missingKey.validated() }
        let missingSecret = ClientConfiguration(
            endpoints: Self.endpoints, clientID: "c", clientAuthentication: .clientSecretJWT)
        #expect(throws: OAuthError.self) { try missingSecret.validated() }
        let keyWithBasic = ClientConfiguration(
            endpoints: Self.endpoints, clientID: "c", clientSecret: "s", clientAuthentication: .clientSecretBasic,
            clientKeyFile: URL(fileURLWithPath: "/k.pem"))
        #expect(throws: OAuthError.self) { try keyWithBasic.validated() }
        #expect(ClientAssertionAudience("token-endpoint") == .tokenEndpoint)
        #expect(ClientAssertionAudience("issuer") == .issuer)
        #expect(ClientAssertionAudience("https://as.example/t") == .url(URL(string: "https://as.example/t")!))
        #expect(ClientAssertionAudience("nonsense") == nil)
    }

    @Test func clientSecretJWTRefusesASecretShorterThan256Bits() throws {
        // RFC 7518 §3.2: an HS256 key of fewer than 256 bits must not be used; a 2-byte one is
        // recovered from a single assertion by trying every value.
        let assertion = ClientAssertion(clientID: "cli", audience: "https://as.example")
        for short in ["s3", String(repeating: "x", count: 31), String(repeating: "é", count: 15) + "x"] {
            #expect(short.utf8.count < 32)
            do {
                _ = try assertion.signed(withSecret: short)
                Issue.record("signed with a \(short.utf8.count)-byte secret")
            } catch {
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains("at least 32 bytes"), "\(error.message)")
                #expect(!error.message.contains(short), "the message does not quote the secret")
            }
            let configuration = ClientConfiguration(
                endpoints: Self.endpoints, clientID: "c", clientSecret: short, clientAuthentication: .clientSecretJWT)
            #expect(throws: OAuthError.self, "refused before any request") { try configuration.validated() }
        }
        let long = String(repeating: "k", count: ClientAssertion.minimumSecretLength)
        #expect(try assertion.signed(withSecret: long).split(separator: ".").count == 3)
        let configuration = ClientConfiguration(
            endpoints: Self.endpoints, clientID: "c", clientSecret: long, clientAuthentication: .clientSecretJWT)
        #expect(throws: Never.self) { try configuration.validated() }
    }

    @Test func aRegistrationThatGivesClientSecretJWTAShortSecretIsRefused() {
        let base = ClientConfiguration(endpoints: Self.endpoints, clientID: "pending")
        let short = ClientRegistration(clientID: "new", clientSecret: "ab", tokenEndpointAuthMethod: .clientSecretJWT)
        #expect(throws: OAuthError.self) { try short.configuration(from: base) }
        let long = ClientRegistration(
            clientID: "new", clientSecret: String(repeating: "k", count: 43), tokenEndpointAuthMethod: .clientSecretJWT)
        #expect(throws: Never.self) { try long.configuration(from: base) }
    }
}
