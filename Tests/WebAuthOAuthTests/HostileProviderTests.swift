import Crypto
import Foundation
import JWTKit
import Synchronization
import Testing
import WebAuthTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Self-tests of the hostile provider and the loopback HTTP server under it, over real HTTP with
/// `URLSession` (and the raw client for requests whose redirect must not be followed): no
/// OAuth client involved.
@Suite("Hostile provider")
struct HostileProviderTests {
    typealias Provider = HostileProvider

    // MARK: Discovery

    @Test func servesBothDiscoveryDocumentsWithEveryEndpoint() async throws {
        try await Provider.withProvider { provider in
            for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
                let (status, document) = try await HTTP.json(provider.server.url(path))
                #expect(status == 200)
                #expect(document["issuer"]?.stringValue == provider.issuer)
                #expect(
                    document["authorization_endpoint"]?.stringValue == provider.authorizationEndpoint.absoluteString)
                #expect(document["token_endpoint"]?.stringValue == provider.tokenEndpoint.absoluteString)
                #expect(document["jwks_uri"]?.stringValue == provider.jwksURI.absoluteString)
                #expect(document["userinfo_endpoint"]?.stringValue == provider.userInfoEndpoint.absoluteString)
                #expect(document["revocation_endpoint"]?.stringValue == provider.revocationEndpoint.absoluteString)
                #expect(
                    document["device_authorization_endpoint"]?.stringValue
                        == provider.deviceAuthorizationEndpoint.absoluteString)
                #expect(document["authorization_response_iss_parameter_supported"] == true)
                #expect(document["code_challenge_methods_supported"] == ["S256"])
            }
        }
    }

    @Test func discoveryFieldsCanBeChangedAndRemoved() async throws {
        try await Provider.withProvider { provider in
            provider.script {
                $0.metadata["issuer"] = "https://evil.example"
                $0.metadata["authorization_response_iss_parameter_supported"] = false
                $0.metadata["x_extra"] = ["a": 1]
                $0.metadata.remove("jwks_uri")
                $0.metadata.remove("userinfo_endpoint")
            }
            let (_, document) = try await HTTP.json(provider.discoveryURL)
            #expect(document["issuer"] == "https://evil.example")
            #expect(document["authorization_response_iss_parameter_supported"] == false)
            #expect(document["x_extra"] == ["a": 1])
            #expect(document["jwks_uri"] == nil)
            #expect(document["userinfo_endpoint"] == nil)
            #expect(document["token_endpoint"] != nil)

            // Setting nil through the subscript restores the default.
            provider.script { $0.metadata["issuer"] = nil }
            let (_, restored) = try await HTTP.json(provider.discoveryURL)
            #expect(restored["issuer"]?.stringValue == provider.issuer)
        }
    }

    // MARK: JWKS and ID tokens

    @Test func jwksHasTheShapeOfRFC7517AndCountsFetches() async throws {
        try await Provider.withProvider { provider in
            let (status, document) = try await HTTP.json(provider.jwksURI)
            #expect(status == 200)
            let keys = try #require(document["keys"]?.arrayValue)
            #expect(keys.count == 2)
            let rsa = try #require(keys.first { $0["kid"] == "rsa-1" })
            #expect(rsa["kty"] == "RSA")
            #expect(rsa["use"] == "sig")
            #expect(rsa["alg"] == "RS256")
            #expect(rsa["e"] == "AQAB")
            let modulus = try #require(rsa["n"]?.stringValue)
            #expect(modulus.count == 342)  // 256 bytes, base64url without padding
            #expect(!modulus.contains("=") && !modulus.contains("+") && !modulus.contains("/"))
            #expect(rsa["d"] == nil && rsa["p"] == nil)
            let ec = try #require(keys.first { $0["kid"] == "ec-1" })
            #expect(ec["kty"] == "EC")
            #expect(ec["crv"] == "P-256")
            #expect(ec["alg"] == "ES256")
            #expect(ec["x"]?.stringValue?.count == 43)
            #expect(ec["y"]?.stringValue?.count == 43)
            #expect(ec["d"] == nil)
            #expect(provider.jwksFetchCount == 1)
        }
    }

    @Test func jwksRotatesAfterTheScriptedNumberOfFetches() async throws {
        try await Provider.withProvider { provider in
            provider.script {
                $0.jwks.keys = [.rsa]
                $0.jwks.rotation = .init(afterFetches: 1, keys: [.rsa, .rsaNext])
            }
            let (_, first) = try await HTTP.json(provider.jwksURI)
            let (_, second) = try await HTTP.json(provider.jwksURI)
            #expect(first["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } == ["rsa-1"])
            #expect(second["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } == ["rsa-1", "rsa-2"])
            #expect(provider.jwksFetchCount == 2)
        }
    }

    @Test(arguments: [Provider.Signing.rs256, .es256])
    func aMintedTokenVerifiesWithJWTKitAgainstTheServedJWKS(_ signing: Provider.Signing) async throws {
        try await Provider.withProvider { provider in
            let token = try await provider.mintIDToken(clientID: "client-1", nonce: "n-0S6", signing: signing)
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: try await HTTP.text(provider.jwksURI))
            let claims = try await keys.verify(token, as: Provider.Claims.self)
            #expect(claims.issuer == provider.issuer)
            #expect(claims.subject == "user-1234")
            #expect(claims.audience == ["client-1"])
            #expect(claims.nonce == "n-0S6")
            let header = try #require(JWTParts(token)?.header)
            #expect(header["alg"]?.stringValue == (signing == .rs256 ? "RS256" : "ES256"))
            #expect(header["kid"]?.stringValue == (signing == .rs256 ? "rsa-1" : "ec-1"))
        }
    }

    @Test(arguments: [Provider.Signing.rs256WithImpostorKey, .es256WithImpostorKey])
    func anImpostorKeyClaimsAServedKidButDoesNotVerify(_ signing: Provider.Signing) async throws {
        try await Provider.withProvider { provider in
            let token = try await provider.mintIDToken(clientID: "client-1", nonce: nil, signing: signing)
            let header = try #require(JWTParts(token)?.header)
            #expect(header["kid"]?.stringValue == (signing == .rs256WithImpostorKey ? "rsa-1" : "ec-1"))
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: try await HTTP.text(provider.jwksURI))
            await #expect(throws: (any Error).self) { try await keys.verify(token, as: Provider.Claims.self) }
        }
    }

    @Test func craftsUnsignedHMACAndKeylessTokens() async throws {
        try await Provider.withProvider { provider in
            let none = try await provider.mintIDToken(clientID: "c", nonce: nil, signing: .none)
            let noneParts = try #require(JWTParts(none))
            #expect(noneParts.header == ["alg": "none"])
            #expect(noneParts.signature.isEmpty)
            #expect(none.hasSuffix("."))

            let secret = "a client secret of at least thirty-two bytes"
            let hmac = try await provider.mintIDToken(clientID: "c", nonce: nil, signing: .hs256(secret: secret))
            #expect(JWTParts(hmac)?.header["alg"] == "HS256")
            let hmacKeys = JWTKeyCollection()
            await hmacKeys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            _ = try await hmacKeys.verify(hmac, as: Provider.Claims.self)
            // Short secrets too (jwt-kit itself would refuse to sign with one).
            let short = try await provider.mintIDToken(clientID: "c", nonce: nil, signing: .hs256(secret: "s"))
            #expect(JWTParts(short)?.signature.count == 43)

            let keyless = try await provider.mintIDToken(clientID: "c", nonce: nil, signing: .rs256.withKeyID(nil))
            #expect(JWTParts(keyless)?.header["kid"] == nil)
            let unknown = try await provider.mintIDToken(clientID: "c", nonce: nil, signing: .rs256WithUnknownKeyID)
            #expect(JWTParts(unknown)?.header["kid"] == "rsa-2")
        }
    }

    @Test func claimsAreFullyScriptable() async throws {
        try await Provider.withProvider { provider in
            let now = Date()
            let token = try await provider.mintIDToken(clientID: "client-1", nonce: "n") { claims, context in
                claims["iss"] = "https://evil.example"
                claims["sub"] = nil
                claims["aud"] = .strings([context.clientID ?? "", "other"])
                claims["azp"] = "other"
                claims["nonce"] = nil
                claims.setTime("exp", context.now.addingTimeInterval(-10))
                claims["extra"] = ["nested": true]
            }
            let payload = try #require(JWTParts(token)?.payload)
            #expect(payload["iss"] == "https://evil.example")
            #expect(payload["sub"] == nil)
            #expect(payload["aud"] == ["client-1", "other"])
            #expect(payload["azp"] == "other")
            #expect(payload["nonce"] == nil)
            #expect((payload["exp"]?.intValue ?? .max) < Int(now.timeIntervalSince1970))
            #expect(payload["extra"] == ["nested": true])
            #expect(payload["iat"]?.intValue != nil)
        }
    }

    // MARK: The code flow, by hand

    @Test func theCodeFlowChecksPKCEAndEchoesTheNonce() async throws {
        try await Provider.withProvider { provider in
            let verifier = String(repeating: "v", count: 43)
            let authorization = try await authorize(provider, verifier: verifier, nonce: "nonce-1")
            #expect(authorization.parameters["state"] == "state-1")
            #expect(authorization.parameters["iss"] == provider.issuer)
            let code = try #require(authorization.parameters["code"])

            let (status, tokens) = try await HTTP.form(
                provider.tokenEndpoint,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                    ("client_id", "client-1"), ("code_verifier", verifier),
                ])
            #expect(status == 200)
            #expect(tokens["token_type"] == "Bearer")
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let claims = try #require(JWTParts(idToken)?.payload)
            #expect(claims["nonce"] == "nonce-1")
            #expect(claims["aud"] == "client-1")
            #expect(provider.mintedIDTokens == [idToken])
            #expect(provider.tokenRequests.first?.clientAuthentication == .none(clientID: "client-1"))
            #expect(provider.tokenRequests.first?.error == nil)

            // The code is one-time.
            let (again, error) = try await HTTP.form(
                provider.tokenEndpoint,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                    ("client_id", "client-1"), ("code_verifier", verifier),
                ])
            #expect(again == 400)
            #expect(error["error"] == "invalid_grant")
        }
    }

    @Test func aWrongVerifierGetsInvalidGrant() async throws {
        try await Provider.withProvider { provider in
            let authorization = try await authorize(provider, verifier: String(repeating: "v", count: 43))
            let code = try #require(authorization.parameters["code"])
            let (status, body) = try await HTTP.form(
                provider.tokenEndpoint,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                    ("client_id", "client-1"), ("code_verifier", String(repeating: "w", count: 43)),
                ])
            #expect(status == 400)
            #expect(body["error"] == "invalid_grant")
            #expect(provider.tokenRequests.map(\.error) == ["invalid_grant"])
        }
    }

    @Test func refreshTokensRotateAndBasicAuthenticationIsRecorded() async throws {
        try await Provider.withProvider { provider in
            provider.script { $0.token.clientSecret = "secret 1" }
            let verifier = String(repeating: "x", count: 50)
            let code = try #require(try await authorize(provider, verifier: verifier).parameters["code"])
            let basic = "Basic " + Data("client-1:secret+1".utf8).base64EncodedString()
            let (_, first) = try await HTTP.form(
                provider.tokenEndpoint,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                    ("code_verifier", verifier),
                ], headers: ["Authorization": basic])
            let refreshToken = try #require(first["refresh_token"]?.stringValue)
            #expect(
                provider.tokenRequests.first?.clientAuthentication == .basic(clientID: "client-1", secret: "secret 1"))

            let (status, second) = try await HTTP.form(
                provider.tokenEndpoint,
                [
                    ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", "client-1"),
                    ("client_secret", "secret 1"),
                ])
            #expect(status == 200)
            let rotated = try #require(second["refresh_token"]?.stringValue)
            #expect(rotated != refreshToken)
            #expect(second["id_token"] != nil)
            #expect(!provider.isActive(refreshToken: refreshToken))
            #expect(provider.isActive(refreshToken: rotated))

            let (reused, error) = try await HTTP.form(
                provider.tokenEndpoint,
                [
                    ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", "client-1"),
                    ("client_secret", "secret 1"),
                ])
            #expect(reused == 400)
            #expect(error["error"] == "invalid_grant")

            let (unauthenticated, noSecret) = try await HTTP.form(
                provider.tokenEndpoint,
                [("grant_type", "refresh_token"), ("refresh_token", rotated), ("client_id", "client-1")])
            #expect(unauthenticated == 401)
            #expect(noSecret["error"] == "invalid_client")

            // A wrong Basic secret: 401 with a Basic challenge (read raw: URLSession on Linux
            // hangs on a Basic challenge without a delegate that cancels it).
            let form = "grant_type=refresh_token&refresh_token=\(rotated)"
            let credentials = Data("client-1:wrong".utf8).base64EncodedString()
            let request =
                "POST /token HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic \(credentials)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(form.utf8.count)\r\n\r\n\(form)"
            let reply = try await RawHTTPClient.exchange(port: provider.server.port, bytes: Array(request.utf8))
            #expect(reply.status == 401)
            #expect(reply.header("WWW-Authenticate") == #"Basic realm="hostile-provider""#)
            #expect(provider.isActive(refreshToken: rotated))
        }
    }

    @Test func authorizationResponsesAreScriptable() async throws {
        try await Provider.withProvider { provider in
            provider.script {
                $0.authorize.response = .error(
                    code: "access_denied", description: "no\u{1B}[31m <b>", uri: "https://docs.example/e")
                $0.authorize.state = .value("forged")
                $0.authorize.issuer = .value("https://evil.example")
            }
            let denied = try await authorize(provider, verifier: String(repeating: "v", count: 43))
            #expect(denied.parameters["error"] == "access_denied")
            #expect(denied.parameters["error_description"] == "no\u{1B}[31m <b>")
            #expect(denied.parameters["error_uri"] == "https://docs.example/e")
            #expect(denied.parameters["state"] == "forged")
            #expect(denied.parameters["iss"] == "https://evil.example")
            #expect(denied.parameters["code"] == nil)

            provider.script {
                $0.authorize = .init()
                $0.authorize.response = .token
                $0.authorize.responseMode = .query
                $0.authorize.state = .absent
                $0.authorize.issuer = .absent
            }
            let tokenInQuery = try await authorize(provider, verifier: String(repeating: "v", count: 43))
            #expect(tokenInQuery.location.contains("?access_token="))
            #expect(tokenInQuery.parameters["state"] == nil)
            #expect(tokenInQuery.parameters["iss"] == nil)

            provider.script { $0.authorize.responseMode = nil }
            let implicit = try await authorize(provider, verifier: String(repeating: "v", count: 43))
            let fragment = try #require(URLComponents(string: implicit.location)?.fragment)
            #expect(fragment.contains("access_token="))
            #expect(fragment.contains("id_token="))

            provider.script {
                $0.authorize = .init()
                $0.metadata["authorization_response_iss_parameter_supported"] = false
            }
            let withoutIss = try await authorize(provider, verifier: String(repeating: "v", count: 43))
            #expect(withoutIss.parameters["iss"] == nil)
            #expect(withoutIss.parameters["code"] != nil)
        }
    }

    @Test func authorizeRefusesRequestsWithoutS256() async throws {
        try await Provider.withProvider { provider in
            let reply = try await RawHTTPClient.get(
                port: provider.server.port,
                target: "/authorize?response_type=code&client_id=c&redirect_uri=\(redirectURI.queryEncoded)&state=s")
            let location = try #require(reply.header("Location"))
            #expect(location.contains("error=invalid_request"))
            #expect(!location.contains("code="))
        }
    }

    // MARK: Other endpoints

    @Test func userInfoRequiresALiveBearerTokenAndRevocationKillsIt() async throws {
        try await Provider.withProvider { provider in
            let verifier = String(repeating: "v", count: 43)
            let code = try #require(try await authorize(provider, verifier: verifier).parameters["code"])
            let (_, tokens) = try await HTTP.form(
                provider.tokenEndpoint,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                    ("client_id", "client-1"), ("code_verifier", verifier),
                ])
            let accessToken = try #require(tokens["access_token"]?.stringValue)
            provider.script { $0.userInfo.subject = "someone-else" }
            let (status, info) = try await HTTP.json(
                provider.userInfoEndpoint, headers: ["Authorization": "Bearer \(accessToken)"])
            #expect(status == 200)
            #expect(info["sub"] == "someone-else")

            let (revoked, _) = try await HTTP.raw(
                provider.revocationEndpoint, method: "POST",
                body: Data("token=\(accessToken)&token_type_hint=access_token&client_id=client-1".utf8))
            #expect(revoked == 200)
            #expect(provider.revocationRequests.first?.formValue("token_type_hint") == "access_token")
            #expect(!provider.isActive(accessToken: accessToken))
            let (refused, _) = try await HTTP.json(
                provider.userInfoEndpoint, headers: ["Authorization": "Bearer \(accessToken)"])
            #expect(refused == 401)
        }
    }

    @Test func devicePollingFollowsTheScriptedAnswers() async throws {
        try await Provider.withProvider { provider in
            provider.script {
                $0.device.pollAnswers = [.authorizationPending, .slowDown, .success]
                $0.device.interval = 5
            }
            let (status, device) = try await HTTP.form(
                provider.deviceAuthorizationEndpoint, [("client_id", "tv"), ("scope", "openid profile")])
            #expect(status == 200)
            #expect(device["user_code"] == "WDJB-MJHT")
            #expect(device["interval"] == 5)
            #expect(device["verification_uri"]?.stringValue == provider.issuer + "/device")
            let deviceCode = try #require(device["device_code"]?.stringValue)
            let poll = [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
                ("client_id", "tv"),
            ]
            let (_, first) = try await HTTP.form(provider.tokenEndpoint, poll)
            let (_, second) = try await HTTP.form(provider.tokenEndpoint, poll)
            let (third, tokens) = try await HTTP.form(provider.tokenEndpoint, poll)
            #expect(first["error"] == "authorization_pending")
            #expect(second["error"] == "slow_down")
            #expect(third == 200)
            #expect(tokens["access_token"] != nil)
            #expect(JWTParts(tokens["id_token"]?.stringValue ?? "")?.payload["nonce"] == nil)
            // Used up.
            let (_, after) = try await HTTP.form(provider.tokenEndpoint, poll)
            #expect(after["error"] == "invalid_grant")
        }
    }

    // MARK: Fault switches

    @Test func faultSwitchesReplaceTheAnswer() async throws {
        try await Provider.withProvider { provider in
            provider.script {
                $0.faults[.token] = .garbageJSON
                $0.faults[.jwks] = .htmlInsteadOfJSON
                $0.faults[.userInfo] = .oversized()
                $0.faults[.openIDConfiguration] = Provider.Fault.status(503, body: "down").times(1)
            }
            let (_, garbage) = try await HTTP.raw(provider.tokenEndpoint, method: "POST", body: Data("a=b".utf8))
            #expect(Provider.JSONValue.parse(garbage) == nil)
            let (_, html) = try await HTTP.raw(provider.jwksURI)
            #expect(String(decoding: html, as: UTF8.self).hasPrefix("<!DOCTYPE html>"))
            let (_, big) = try await HTTP.raw(provider.userInfoEndpoint)
            #expect(big.count == 2 << 20)
            #expect(Provider.JSONValue.parse(big)?["padding"] != nil)
            let (down, _) = try await HTTP.raw(provider.discoveryURL)
            let (up, _) = try await HTTP.raw(provider.discoveryURL)
            #expect(down == 503)
            #expect(up == 200)
            #expect(provider.tokenRequests.isEmpty)  // the fault answered before the endpoint
        }
    }

    @Test func aDelayedAnswerComesLateAndDoesNotBlockOthers() async throws {
        // The provider's time moves only when the test moves it, so "while the answer is delayed"
        // means the same on an idle machine and on one too busy to answer anything in 3 s.
        let time = SteppedClock()
        try await Provider.withProvider(sleep: time.sleep) { provider in
            provider.script { $0.faults[.token] = .delay(.seconds(3)) }
            let finished = Mutex(false)
            let slow = Task {
                let reply = try await HTTP.raw(provider.tokenEndpoint, method: "POST", body: Data(), timeout: 120)
                finished.withLock { $0 = true }
                return reply
            }
            #expect(await eventually { time.sleeperCount == 1 }, "the token answer waits out its delay")
            // Answered while the token answer is still delayed.
            let (status, _) = try await HTTP.raw(provider.discoveryURL)
            #expect(status == 200)
            time.advance(by: .milliseconds(2999))
            #expect(time.sleeperCount == 1, "not answered a moment before the delay ends")
            #expect(!finished.withLock { $0 })
            time.advance(by: .milliseconds(1))
            let (slowStatus, _) = try await slow.value
            #expect(slowStatus == 400)
            #expect(time.sleeperCount == 0)
        }
    }

    @Test func aDelayedAnswerIsCancelledByShutdown() async throws {
        let provider = try await Provider.start()
        provider.script { $0.faults[.jwks] = .delay(.seconds(30)) }
        let slow = Task { try await HTTP.raw(provider.jwksURI) }
        _ = await provider.waitForRequests(to: .jwks)
        await provider.shutdown()
        // The connection closes unanswered: an error, not a 30-second wait.
        await #expect(throws: (any Error).self) { try await slow.value }
    }

    @Test func aGateHoldsTheAnswerUntilOpened() async throws {
        try await Provider.withProvider { provider in
            let gate = Provider.Gate()
            provider.script { $0.faults[.jwks] = .hold(until: gate) }
            let held = Task { try await HTTP.json(provider.jwksURI) }
            // Once the request waits at the gate, nothing can answer it until the gate opens.
            #expect(await eventually { gate.waitingCount == 1 })
            #expect(await provider.requests(to: .jwks).first?.responseStatus == nil)
            gate.open()
            let (status, _) = try await held.value
            #expect(status == 200)
        }
    }

    @Test func theServerRefusesOversizedRequestBodies() async throws {
        try await Provider.withProvider { provider in
            let (status, _) = try await HTTP.raw(
                provider.tokenEndpoint, method: "POST", body: Data(repeating: 0x61, count: (1 << 20) + 1))
            #expect(status == 413)
            #expect(provider.tokenRequests.isEmpty)
            #expect(await provider.requests.first?.responseStatus == 413)
        }
    }

    // MARK: The request log

    @Test func theRequestLogKeepsOrderMethodsHeadersAndBodies() async throws {
        try await Provider.withProvider { provider in
            _ = try await HTTP.raw(provider.discoveryURL)
            _ = try await HTTP.raw(provider.jwksURI, headers: ["X-Probe": "1"])
            _ = try await HTTP.raw(
                provider.tokenEndpoint, method: "POST", body: Data("grant_type=refresh_token&refresh_token=r".utf8))
            _ = try await HTTP.raw(provider.server.url("/nowhere?x=1"))
            let requests = await provider.requests
            #expect(
                requests.map(\.path) == ["/.well-known/openid-configuration", "/jwks", "/token", "/nowhere"])
            #expect(requests.map(\.method) == ["GET", "GET", "POST", "GET"])
            #expect(requests.map(\.responseStatus) == [200, 200, 400, 404])
            #expect(requests[1].header("x-probe") == "1")
            #expect(requests[2].bodyText == "grant_type=refresh_token&refresh_token=r")
            #expect(requests[2].formValue("refresh_token") == "r")
            #expect(requests[3].queryValue("x") == "1")
            #expect(zip(requests, requests.dropFirst()).allSatisfy { $0.receivedAt <= $1.receivedAt })
        }
    }

    @Test func chunkedRequestBodiesAreDecoded() {
        let body = Array("4\r\nwiki\r\n5;ext=1\r\npedia\r\n0\r\nTrailer: x\r\n\r\n".utf8)
        #expect(RequestBody.chunked.read(body, limit: 100) == .complete(Array("wikipedia".utf8)))
        #expect(RequestBody.chunked.read(body, limit: 5) == .tooLarge)
        #expect(RequestBody.chunked.read(Array("4\r\nwi".utf8), limit: 100) == .incomplete)
        #expect(RequestBody.length(3).read(Array("abcdef".utf8), limit: 100) == .complete(Array("abc".utf8)))
    }

    // MARK: Helpers

    private let redirectURI = "http://127.0.0.1:9/callback"

    /// `/authorize` for `client-1` with PKCE S256 and `state-1`, without following the redirect.
    private func authorize(
        _ provider: HostileProvider, verifier: String, nonce: String? = nil
    ) async throws -> (location: String, parameters: [String: String]) {
        let challenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        var query = [
            ("response_type", "code"), ("client_id", "client-1"), ("redirect_uri", redirectURI),
            ("scope", "openid profile"), ("state", "state-1"), ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ]
        if let nonce { query.append(("nonce", nonce)) }
        let reply = try await RawHTTPClient.get(
            port: provider.server.port, target: "/authorize?" + FormCoding.encode(query))
        #expect(reply.status == 302)
        let location = try #require(reply.header("Location"))
        let components = URLComponents(string: location)
        let encoded = components?.percentEncodedQuery ?? components?.percentEncodedFragment ?? ""
        var parameters: [String: String] = [:]
        for (name, value) in FormCoding.decode(encoded) where parameters[name] == nil {
            parameters[name] = value
        }
        return (location, parameters)
    }
}

/// The parts of a compact JWS, decoded (no verification).
private struct JWTParts {
    var header: HostileProvider.JSONValue
    var payload: HostileProvider.JSONValue
    var signature: String

    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.decode(parts[0]), let payload = Self.decode(parts[1]) else {
            return nil
        }
        self.header = header
        self.payload = payload
        self.signature = String(parts[2])
    }

    private static func decode(_ part: Substring) -> HostileProvider.JSONValue? {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).flatMap { HostileProvider.JSONValue.parse($0) }
    }
}

/// Plain HTTP with `URLSession` (ephemeral; the provider's endpoints do not redirect).
private enum HTTP {
    private static let session = URLSession(configuration: .ephemeral)

    /// Sends a request and returns the status and body.
    static func raw(
        _ url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil,
        timeout: TimeInterval = 10
    ) async throws -> (Int, Data) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if body != nil, headers["Content-Type"] == nil {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// `GET` and parse JSON (`null` when the body is not JSON).
    static func json(_ url: URL, headers: [String: String] = [:]) async throws -> (Int, HostileProvider.JSONValue) {
        let (status, data) = try await raw(url, headers: headers)
        return (status, HostileProvider.JSONValue.parse(data) ?? .null)
    }

    /// `GET` as text.
    static func text(_ url: URL) async throws -> String {
        String(decoding: try await raw(url).1, as: UTF8.self)
    }

    /// `POST` a form and parse the JSON answer.
    static func form(
        _ url: URL, _ fields: [(String, String)], headers: [String: String] = [:]
    ) async throws -> (Int, HostileProvider.JSONValue) {
        let (status, data) = try await raw(
            url, method: "POST", headers: headers, body: Data(FormCoding.encode(fields).utf8))
        return (status, HostileProvider.JSONValue.parse(data) ?? .null)
    }
}
