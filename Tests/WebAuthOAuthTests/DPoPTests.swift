// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import HTTPTypes
import Testing
import WebAuthCore
import WebAuthPlatform

@testable import WebAuthOAuth

/// DPoP (RFC 9449) through the transport seam: the proof's form, checked with swift-crypto
/// directly rather than through the code that made it; the nonce dance; `token_type`; the key
/// kept with the tokens. The same paths run over real HTTP against the embedded provider.
@Suite("DPoP")
struct DPoPTests {
    static let endpoints = ClientConfiguration.Endpoints(
        authorization: URL(string: "https://as.example/authorize"), token: URL(string: "https://as.example/token"),
        revocation: URL(string: "https://as.example/revoke"), userInfo: URL(string: "https://as.example/userinfo"))

    private func client(
        dpop: DPoPKey.Storage? = .persistent, allowsDowngrade: Bool = false, clock: ManualClock = ManualClock(),
        _ transport: ScriptedTransport
    ) throws -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(
                endpoints: Self.endpoints, clientID: "cli", scopes: ["read"], dpop: dpop,
                allowsDPoPDowngrade: allowsDowngrade),
            transport: transport, clock: clock.oauthClock)
    }

    /// A proof taken apart and its signature checked against the key in its own header.
    struct DecodedProof {
        var header: [String: Any]
        var claims: [String: Any]
        var jwk: [String: String]

        init(_ compact: String) throws {
            let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            try #require(parts.count == 3)
            let headerData = try #require(Data(base64URLEncoded: parts[0]))
            let claimsData = try #require(Data(base64URLEncoded: parts[1]))
            header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
            claims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
            jwk = try #require(header["jwk"] as? [String: String])
            let xText = try #require(jwk["x"])
            let yText = try #require(jwk["y"])
            let x = try #require(Data(base64URLEncoded: xText))
            let y = try #require(Data(base64URLEncoded: yText))
            let key = try P256.Signing.PublicKey(rawRepresentation: x + y)
            let signature = try P256.Signing.ECDSASignature(
                rawRepresentation: try #require(Data(base64URLEncoded: parts[2])))
            #expect(key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        }
    }

    @Test func theThumbprintAndAthMatchRFC9449sExamples() {
        // RFC 9449 §4.1 (the proof's jwk) and §6.1 (its jkt); §7.1 (ath).
        #expect(
            DPoPKey.thumbprint(
                x: "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs", y: "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA")
                == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        #expect(
            DPoPProof.hash(ofAccessToken: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")
                == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    @Test func aProofHasTheHeaderAndClaimsTheRFCAsksFor() throws {
        let key = DPoPKey()
        let issued = Date(timeIntervalSince1970: 1_800_000_000.7)
        let proof = DPoPProof(
            method: "post", url: URL(string: "HTTPS://AS.Example:443/token?x=1#frag")!, accessToken: "at",
            nonce: "n-1", issuedAt: issued)
        let decoded = try DecodedProof(proof.signed(with: key))
        #expect(decoded.header["typ"] as? String == "dpop+jwt")
        #expect(decoded.header["alg"] as? String == "ES256")
        #expect(decoded.jwk["kty"] == "EC" && decoded.jwk["crv"] == "P-256" && decoded.jwk["d"] == nil)
        #expect(DPoPKey.thumbprint(x: decoded.jwk["x"]!, y: decoded.jwk["y"]!) == key.thumbprint)
        #expect(decoded.claims["htm"] as? String == "POST")
        #expect(decoded.claims["htu"] as? String == "https://as.example/token")
        #expect(decoded.claims["iat"] as? Int == 1_800_000_000)
        #expect(decoded.claims["nonce"] as? String == "n-1")
        #expect(decoded.claims["ath"] as? String == DPoPProof.hash(ofAccessToken: "at"))
        #expect((decoded.claims["jti"] as? String)?.count == 43)
        let other = DPoPProof(method: "POST", url: URL(string: "https://as.example/token")!)
        #expect(other.identifier != proof.identifier)
        #expect(other.accessTokenHash == nil && other.nonce == nil)
        #expect(DPoPProof.targetURI(of: URL(string: "http://127.0.0.1:8080")!) == "http://127.0.0.1:8080/")
    }

    @Test func tokenRequestsCarryAFreshProofAndTheTokensKeepTheKey() async throws {
        let transport = ScriptedTransport { _ in
            .json(200, #"{"access_token":"at","token_type":"DPoP","expires_in":60,"refresh_token":"rt"}"#)
        }
        let clock = ManualClock()
        let client = try client(clock: clock, transport)
        let tokens = try await client.exchange(
            code: "c", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
        #expect(tokens.isDPoPBound)
        #expect(tokens.dpopKey == client.dpopKey)
        let refreshed = try await client.refresh(tokens)
        #expect(refreshed.dpopKey == tokens.dpopKey)
        try await client.revoke(refreshed)
        let proofs = try transport.requests.map { request in
            try DecodedProof(try #require(request.headerFields[HTTPField.Name("DPoP")!]))
        }
        #expect(proofs.count == 4)
        #expect(Set(proofs.compactMap { $0.claims["jti"] as? String }).count == 4)
        #expect(
            proofs.allSatisfy { DPoPKey.thumbprint(x: $0.jwk["x"]!, y: $0.jwk["y"]!) == tokens.dpopKey?.thumbprint })
        #expect(proofs[0].claims["htu"] as? String == "https://as.example/token")
        #expect(proofs[3].claims["htu"] as? String == "https://as.example/revoke")
        #expect(proofs.allSatisfy { $0.claims["ath"] == nil })
    }

    @Test func useDPoPNonceAtTheTokenEndpointIsRetriedExactlyOnce() async throws {
        let calls = CallCounter()
        let transport = ScriptedTransport { _ in
            let call = calls.next()
            var response = HTTPTransportResponse.json(
                400,
                #"{"error":"use_dpop_nonce","error_description":"Authorization server requires nonce in DPoP proof"}"#)
            response.headerFields.append(HTTPField(name: HTTPField.Name("DPoP-Nonce")!, value: "nonce-\(call)"))
            if call == 2 {
                response = .json(200, #"{"access_token":"at","token_type":"DPoP"}"#)
                response.headerFields.append(HTTPField(name: HTTPField.Name("DPoP-Nonce")!, value: "nonce-next"))
            }
            return response
        }
        let client = try client(transport)
        let tokens = try await client.exchange(
            code: "c", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
        #expect(tokens.accessToken == "at")
        let first = try DecodedProof(try #require(transport.requests[0].headerFields[HTTPField.Name("DPoP")!]))
        let second = try DecodedProof(try #require(transport.requests[1].headerFields[HTTPField.Name("DPoP")!]))
        #expect(first.claims["nonce"] == nil)
        #expect(second.claims["nonce"] as? String == "nonce-1")
        #expect(first.claims["jti"] as? String != second.claims["jti"] as? String)

        // A server that keeps asking gets one retry, then its error.
        calls.set(10)
        await #expect {
            _ = try await client.refresh(
                TokenSet(accessToken: "a", tokenType: "DPoP", refreshToken: "r", dpopKey: tokens.dpopKey))
        } throws: { error in
            (error as? OAuthError)?.serverError?.code == .useDPoPNonce
        }
        #expect(transport.requests.count == 4)
        let third = try DecodedProof(try #require(transport.requests[2].headerFields[HTTPField.Name("DPoP")!]))
        #expect(third.claims["nonce"] as? String == "nonce-next")
    }

    @Test func aBearerAnswerToADPoPRequestIsRefusedUnlessAllowed() async throws {
        let transport = ScriptedTransport { _ in .json(200, #"{"access_token":"at","token_type":"Bearer"}"#) }
        await #expect {
            _ = try await client(transport).exchange(
                code: "c", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
        } throws: { error in
            (error as? OAuthError)?.code == .dpopDowngraded
        }
        let tokens = try await client(allowsDowngrade: true, transport).exchange(
            code: "c", verifier: "v", redirectURI: URL(string: "http://127.0.0.1:1/cb")!, nonce: nil)
        #expect(!tokens.isDPoPBound && tokens.dpopKey == nil)
    }

    @Test func userInfoSendsTheTokenAsDPoPWithAth() async throws {
        let transport = ScriptedTransport { _ in .json(200, #"{"sub":"s"}"#) }
        let client = try client(transport)
        let key = try #require(client.dpopKey)
        _ = try await client.userInfo(for: TokenSet(accessToken: "at-value", tokenType: "DPoP", dpopKey: key))
        let request = try #require(transport.requests.first)
        #expect(request.headerFields[.authorization] == "DPoP at-value")
        let proof = try DecodedProof(try #require(request.headerFields[HTTPField.Name("DPoP")!]))
        #expect(proof.claims["htm"] as? String == "GET")
        #expect(proof.claims["ath"] as? String == DPoPProof.hash(ofAccessToken: "at-value"))

        // DPoP-bound tokens without their key are never sent as bearer tokens.
        await #expect {
            _ = try await client.userInfo(for: TokenSet(accessToken: "at-value", tokenType: "DPoP"))
        } throws: { error in
            (error as? OAuthError)?.code == .dpopKeyMissing
        }
        #expect(transport.requests.count == 1)
    }

    @Test func aResourceAskingForANonceGetsOneMoreRequest() async throws {
        let calls = CallCounter()
        let transport = ScriptedTransport { request in
            let call = calls.next()
            guard call > 1 else {
                return HTTPTransportResponse(
                    status: 401,
                    headerFields: [
                        .wwwAuthenticate: #"DPoP error="use_dpop_nonce", error_description="nonce""#,
                        HTTPField.Name("DPoP-Nonce")!: "rs-nonce",
                    ])
            }
            return HTTPTransportResponse(status: 200, body: Data("ok".utf8))
        }
        let key = DPoPKey()
        let client = try client(transport)
        let provider = AccessTokenProvider(
            client: client, tokens: TokenSet(accessToken: "at", tokenType: "DPoP", dpopKey: key))
        let response = try await ResourceClient(tokenProvider: provider, transport: transport).send(
            HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example/v1/items?page=2")!))
        #expect(response.status == 200)
        #expect(transport.requests.count == 2)
        let proofs = try transport.requests.map {
            try DecodedProof(try #require($0.headerFields[HTTPField.Name("DPoP")!]))
        }
        #expect(proofs[0].claims["nonce"] == nil)
        #expect(proofs[1].claims["nonce"] as? String == "rs-nonce")
        #expect(proofs[1].claims["htu"] as? String == "https://api.example/v1/items")
        #expect(transport.requests.allSatisfy { $0.headerFields[.authorization] == "DPoP at" })
    }

    @Test func onlyAPersistentKeyIsStoredWithTheTokens() throws {
        let persistent = TokenSet(accessToken: "at", tokenType: "DPoP", dpopKey: DPoPKey(storage: .persistent))
        let decoded = try JSONDecoder().decode(TokenSet.self, from: JSONEncoder().encode(persistent))
        #expect(decoded.dpopKey == persistent.dpopKey)
        let ephemeral = TokenSet(accessToken: "at", tokenType: "DPoP", dpopKey: DPoPKey(storage: .ephemeral))
        let stored = try JSONEncoder().encode(ephemeral)
        #expect(try JSONDecoder().decode(TokenSet.self, from: stored).dpopKey == nil)
        #expect(!String(decoding: stored, as: UTF8.self).contains("dpopKey"))
        // Printing never shows the private key.
        let key = try #require(persistent.dpopKey)
        let d = String(decoding: try JSONEncoder().encode(key), as: UTF8.self)
        #expect(d.contains(#""d":"#))
        #expect(!"\(persistent)".contains("\"d\"") && "\(key)".contains(key.thumbprint))
    }

    @Test func theConfigurationFileKeysRoundTrip() throws {
        let json =
            #"{"issuer":"https://as.example","clientID":"cli","usePushedAuthorization":"always","dpop":"persistent","allowsDPoPDowngrade":true}"#
        let configuration = try JSONDecoder().decode(ClientConfiguration.self, from: Data(json.utf8))
        #expect(configuration.usePushedAuthorization == .always)
        #expect(configuration.dpop == .persistent)
        #expect(configuration.allowsDPoPDowngrade)
        let again = try JSONDecoder().decode(ClientConfiguration.self, from: JSONEncoder().encode(configuration))
        #expect(again == configuration)
        let plain = try JSONDecoder().decode(ClientConfiguration.self, from: Data(#"{"clientID":"cli"}"#.utf8))
        #expect(plain.usePushedAuthorization == .automatic && plain.dpop == nil && !plain.allowsDPoPDowngrade)
        #expect(
            try OAuthClient(
                configuration: ClientConfiguration(issuer: URL(string: "https://as.example")!, clientID: "c")
            ).dpopKey == nil)
    }

    @Test func aProviderWithoutES256ForDPoPIsAConfigurationError() async throws {
        let transport = ScriptedTransport { request in
            .json(
                200,
                #"{"issuer":"https://as.example","authorization_endpoint":"https://as.example/a","token_endpoint":"https://as.example/t","dpop_signing_alg_values_supported":["RS256"]}"#
            )
        }
        let client = try OAuthClient(
            configuration: ClientConfiguration(
                issuer: URL(string: "https://as.example")!, clientID: "cli", dpop: .ephemeral),
            transport: transport)
        await #expect {
            _ = try await client.prepareAuthorization()
        } throws: { error in
            (error as? OAuthError)?.code == .invalidConfiguration
        }
    }
}

/// Counts a scripted transport's calls, from 1.
private final class CallCounter: Sendable {
    private let count = Locked(0)

    /// The number of this call.
    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }

    /// Continues counting after `value`.
    func set(_ value: Int) { count.withLock { $0 = value } }
}
