import Foundation
import Synchronization
import WebAuthTesting

/// A scriptable, hostile OAuth 2.0 / OpenID Connect provider served over real HTTP on
/// `127.0.0.1`, for tests of a client's security checks.
///
/// By default it behaves like a strict, modern provider: discovery (OpenID and RFC 8414),
/// `/authorize` with PKCE `S256` and RFC 9207 `iss`, `/token` (authorization code, rotating
/// refresh tokens, device code), `RS256` ID tokens, `/jwks`, `/userinfo`, `/revoke` and
/// `/device_authorization`. A ``Script`` changes any of it — wrong `iss`, forged `state`,
/// `alg: none`, a key that is not in the JWKS, garbage JSON, a slow endpoint — and every
/// request is logged in order, so a test can assert that after a rejection the client called
/// nothing else.
///
/// ```swift
/// let provider = try await HostileProvider.start()
/// defer { Task { await provider.shutdown() } }          // or withProvider(_:_:)
/// provider.script {
///     $0.idToken.signing = .none
///     $0.faults[.userInfo] = .garbageJSON
/// }
/// // … sign in with issuer provider.issuerURL …
/// #expect(await provider.requestPaths.last == "/token")  // no /userinfo after the rejection
/// #expect(provider.tokenRequests.first?.formValue("code_verifier") != nil)
/// ```
///
/// Prefer ``EmbeddedProvider`` and its forgery and fault switches for new tests: they cover the
/// client's authorization-response, ID token, discovery and transport checks. This provider
/// remains for the command-line process tests, which rely on what the embedded provider has no
/// switch for yet: a device flow that approves itself, and per-response scripts of hostile
/// device-authorization members, error texts, token-response members and UserInfo claims.
package final class HostileProvider: Sendable {
    /// The server the provider runs on.
    package let server: LoopbackHTTPServer
    /// `http://127.0.0.1:{port}`: the issuer identifier, with no trailing slash.
    package let issuer: String
    private let core: ProviderCore

    private init(server: LoopbackHTTPServer, core: ProviderCore) {
        self.server = server
        self.core = core
        self.issuer = server.baseURL.absoluteString
    }

    /// Starts a provider with `script` on a port the system picks; delayed answers wait with
    /// `sleep` (`Task.sleep`, or a ``SteppedClock``'s).
    ///
    /// Call ``shutdown()`` when done, or use ``withProvider(_:sleep:isolation:_:)``.
    package static func start(
        _ script: Script = Script(), sleep: @escaping LoopbackHTTPServer.Sleep = { try await Task.sleep(for: $0) }
    ) async throws -> HostileProvider {
        let core = ProviderCore(script: script)
        let server = try await LoopbackHTTPServer.start(limits: .init(maximumBodySize: 1 << 20), sleep: sleep) {
            request in await core.handle(request)
        }
        core.state.withLock { $0.issuer = server.baseURL.absoluteString }
        return HostileProvider(server: server, core: core)
    }

    /// Runs `body` with a started provider and shuts it down afterwards, however `body` ends.
    package static func withProvider<Result>(
        _ script: Script = Script(),
        sleep: @escaping LoopbackHTTPServer.Sleep = { try await Task.sleep(for: $0) },
        isolation: isolated (any Actor)? = #isolation,
        _ body: (HostileProvider) async throws -> Result
    ) async throws -> Result {
        try await withShutdown(of: try await start(script, sleep: sleep), shutdown: { await $0.shutdown() }, body)
    }

    /// Stops the server, cancelling held and delayed answers. Safe to call more than once.
    package func shutdown() async {
        await server.shutdown()
    }

    /// Changes the script; requests that arrive afterwards see the change.
    ///
    /// `change` runs under the provider's lock: it must not call the provider.
    package func script(_ change: (inout Script) -> Void) {
        core.state.withLock { change(&$0.script) }
    }

    /// The script as it is now.
    package var currentScript: Script {
        core.state.withLock { $0.script }
    }

    // MARK: Addresses

    /// The issuer as a URL.
    package var issuerURL: URL { server.baseURL }
    /// The URL of `endpoint`.
    package func url(_ endpoint: Endpoint) -> URL { server.url(endpoint.path) }
    /// `/.well-known/openid-configuration`.
    package var discoveryURL: URL { url(.openIDConfiguration) }
    /// `/authorize`.
    package var authorizationEndpoint: URL { url(.authorize) }
    /// `/token`.
    package var tokenEndpoint: URL { url(.token) }
    /// `/jwks`.
    package var jwksURI: URL { url(.jwks) }
    /// `/userinfo`.
    package var userInfoEndpoint: URL { url(.userInfo) }
    /// `/revoke`.
    package var revocationEndpoint: URL { url(.revocation) }
    /// `/device_authorization`.
    package var deviceAuthorizationEndpoint: URL { url(.deviceAuthorization) }

    // MARK: What happened

    /// Every request so far, oldest first.
    package var requests: [ServerRequest] {
        get async { await server.requests }
    }

    /// The paths of every request so far, oldest first, such as
    /// `["/.well-known/openid-configuration", "/authorize", "/token", "/jwks"]`.
    package var requestPaths: [String] {
        get async { await server.requestPaths }
    }

    /// The requests to `endpoint` so far, oldest first.
    package func requests(to endpoint: Endpoint) async -> [ServerRequest] {
        await server.requests(to: endpoint.path)
    }

    /// Waits until `count` requests to `endpoint` have arrived or `timeout` has passed.
    package func waitForRequests(
        to endpoint: Endpoint, count: Int = 1, timeout: Duration = .seconds(60)
    ) async -> [ServerRequest] {
        await server.waitForRequests(to: endpoint.path, count: count, timeout: timeout)
    }

    /// How many times `/jwks` was requested.
    package var jwksFetchCount: Int { core.state.withLock { $0.jwksFetches } }

    /// The token requests so far (every grant type), oldest first.
    package var tokenRequests: [TokenRequestRecord] { core.state.withLock { $0.tokenRequests } }

    /// The revocation requests so far, oldest first (`grantType` is `revocation`).
    package var revocationRequests: [TokenRequestRecord] { core.state.withLock { $0.revocations } }

    /// The `Location`s `/authorize` redirected to, oldest first.
    package var authorizationRedirects: [String] { core.state.withLock { $0.authorizationRedirects } }

    /// The ID tokens minted so far, oldest first.
    package var mintedIDTokens: [String] { core.state.withLock { $0.mintedIDTokens } }

    /// Whether `token` is an access token the provider issued and has not revoked.
    package func isActive(accessToken token: String) -> Bool {
        core.state.withLock { $0.accessTokens[token]?.active == true }
    }

    /// Whether `token` is a refresh token the provider issued and has not retired (rotated
    /// away or revoked).
    package func isActive(refreshToken token: String) -> Bool {
        core.state.withLock { $0.refreshTokens[token]?.active == true }
    }

    // MARK: Minting

    /// The claims the provider would put in an ID token for `clientID`, before any edit:
    /// `iss`, `sub`, `aud`, `iat`, `exp`, `auth_time`, and `nonce` when given.
    package func defaultClaims(clientID: String, nonce: String?, now: Date = Date()) -> Claims {
        core.state.withLock { state in
            let context = IDTokenContext(
                grantType: "authorization_code", clientID: clientID, nonce: nonce, scope: "openid",
                subject: state.script.subject, issuer: state.issuer, now: now,
                previouslyMinted: state.mintedIDTokens.count)
            return ProviderCore.defaultClaims(context, lifetime: state.script.idToken.lifetime)
        }
    }

    /// Mints an ID token outside any flow, for tests that hand one to a client's validator:
    /// the default claims for `clientID` and `nonce`, then `edit`, signed as `signing` says.
    package func mintIDToken(
        clientID: String, nonce: String?, signing: Signing = .rs256, now: Date = Date(),
        edit: ClaimsEditor? = nil
    ) async throws -> String {
        var claims = defaultClaims(clientID: clientID, nonce: nonce, now: now)
        if let edit {
            let context = IDTokenContext(
                grantType: "authorization_code", clientID: clientID, nonce: nonce, scope: "openid",
                subject: claims.subject ?? "", issuer: issuer, now: now, previouslyMinted: mintedIDTokens.count)
            edit(&claims, context)
        }
        return try await Self.mint(claims, signing: signing)
    }

    /// The JWKS document the next fetch will get (reading it does not count as a fetch).
    package var nextJWKS: JSONValue {
        core.state.withLock { state in
            ProviderCore.jwksDocument(keys: state.servedKeys(afterFetch: state.jwksFetches + 1))
        }
    }
}
