// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthPlatform

/// A real OAuth 2.0 and OpenID Connect authorization server that runs inside your process, on
/// `127.0.0.1`: for demos, and for testing sign-in code in CI with no account anywhere.
///
/// It is strict the way a modern provider is: PKCE `S256` required, redirect URIs checked
/// before anything else (loopback ones on any port), single-use codes, rotating refresh tokens
/// with reuse detection, RFC 9207 `iss` on every authorization response, RS256 ID tokens with
/// a rotatable key. People sign in on a real HTML login form and approve on a consent page, in
/// any browser — or ``ScriptedUserAgent`` plays the person.
///
/// ```swift
/// let provider = try await EmbeddedProvider.start()
/// defer { Task { await provider.shutdown() } }          // or withProvider(_:_:)
/// // Discovery: \(provider.issuer)/.well-known/openid-configuration
/// // Client: "webauth-demo" (public), redirect http://127.0.0.1/callback on any port
/// // Person: "demo" / "demo-password"
/// ```
///
/// Endpoints: discovery (OpenID Connect and RFC 8414), `/authorize` (with `/login` and
/// `/consent`), `/token` (authorization code, refresh token, device code), `/userinfo`,
/// `/jwks`, `/revoke` (RFC 7009), `/device_authorization` and the `/device` verification page
/// (RFC 8628).
///
/// For tests, ``setFault(_:for:)`` makes an endpoint slow, failing or garbled,
/// ``overrideIDTokenClaims(_:)`` makes ID tokens wrong in a chosen way, the forgery switches
/// (``overrideAuthorizationResponse(_:)``, ``overrideMetadata(_:)``,
/// ``forgeIDTokenSignatures(_:)``) forge what a client must refuse, a ``SteppedClock`` as
/// ``Configuration/clock`` makes things expire without waiting, and ``requests`` tells which
/// endpoints were called. Nothing the provider logs, and no error it describes, contains
/// a token, code, verifier, password or secret.
public final class EmbeddedProvider: Sendable {
    /// `http://127.0.0.1:{port}`: the issuer identifier, exactly as the discovery document,
    /// ID tokens and authorization responses name it (no trailing slash).
    public let issuer: URL
    /// The configuration the provider runs with.
    public let configuration: Configuration

    private let server: LoopbackHTTPServer
    let engine: ProviderEngine

    private init(issuer: URL, configuration: Configuration, server: LoopbackHTTPServer, engine: ProviderEngine) {
        self.issuer = issuer
        self.configuration = configuration
        self.server = server
        self.engine = engine
    }

    /// Starts a provider on `127.0.0.1` at a port the system picks.
    ///
    /// Call ``shutdown()`` when done, or use ``withProvider(_:isolation:_:)``.
    ///
    /// - Throws: ``EmbeddedProviderError`` when the configuration is unusable or the server
    ///   cannot listen.
    public static func start(_ configuration: Configuration = Configuration()) async throws(EmbeddedProviderError)
        -> EmbeddedProvider
    {
        let configuration = try configuration.validated()
        let engine = ProviderEngine(configuration: configuration, key: try await SigningKey.generateInBackground())
        let server: LoopbackHTTPServer
        do {
            server = try await LoopbackHTTPServer.start(limits: .init(maximumBodySize: 64 * 1024)) { request in
                await engine.handle(request)
            }
        } catch {
            throw EmbeddedProviderError(code: .startFailed, message: "cannot listen on 127.0.0.1: \(error)")
        }
        engine.attach(server)
        return EmbeddedProvider(issuer: server.baseURL, configuration: configuration, server: server, engine: engine)
    }

    /// Runs `body` with a started provider and shuts the provider down afterwards, however
    /// `body` ends.
    public static func withProvider<Result>(
        _ configuration: Configuration = Configuration(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (EmbeddedProvider) async throws -> Result
    ) async throws -> Result {
        try await withShutdown(of: try await start(configuration), shutdown: { await $0.shutdown() }, body)
    }

    /// Stops listening and closes open connections (cancelling delayed answers). Safe to call
    /// more than once.
    public func shutdown() async {
        await server.shutdown()
    }

    /// The port the provider listens on.
    public var port: Int { server.port }

    /// The URL of `endpoint`, such as `http://127.0.0.1:{port}/token`.
    public func url(_ endpoint: Endpoint) -> URL {
        server.url(endpoint.path)
    }

    /// The OpenID Connect discovery document's URL.
    public var discoveryURL: URL { url(.openIDConfiguration) }

    /// The device verification page, where a person enters a user code.
    public var deviceVerificationURL: URL { url(.deviceVerification) }

    // MARK: - Keys

    /// Makes a new RS256 key the signing key: ID tokens are signed with it from now on, and
    /// the JWKS serves it first, followed by the previous keys (the last three are kept), so
    /// tokens signed before still verify.
    ///
    /// - Throws: ``EmbeddedProviderError/Code/keyGenerationFailed`` if no key could be made
    ///   (the previous key keeps signing).
    public func rotateSigningKey() async throws(EmbeddedProviderError) {
        let key = try await SigningKey.generateInBackground()
        engine.state.withLock { $0.keys.rotate(to: key) }
    }

    /// The `kid` of the key that signs now.
    public var currentKeyID: String {
        engine.state.withLock { $0.keys.current.keyID }
    }

    /// The `kid`s the JWKS serves, newest first.
    public var publishedKeyIDs: [String] {
        engine.state.withLock { $0.keys.keys.reversed().map(\.keyID) }
    }

    // MARK: - Fault switches

    /// Sets the fault `endpoint` shows from the next request on; `nil` makes it normal again.
    ///
    /// ```swift
    /// provider.setFault(.delay(.seconds(30)), for: .token)
    /// provider.setFault(.error("server_error", description: "try later", status: 500).times(1), for: .token)
    /// ```
    public func setFault(_ fault: Fault?, for endpoint: Endpoint) {
        engine.state.withLock { $0.faults[endpoint] = fault }
    }

    /// The fault set for `endpoint`, if any.
    public func fault(for endpoint: Endpoint) -> Fault? {
        engine.state.withLock { $0.faults[endpoint] }
    }

    /// Makes every endpoint normal again.
    public func removeAllFaults() {
        engine.state.withLock { $0.faults.removeAll() }
    }

    /// Changes the claims of the ID tokens issued from now on; `nil` makes them correct again.
    public func overrideIDTokenClaims(_ overrides: IDTokenClaimOverrides?) {
        engine.state.withLock { $0.claimOverrides = overrides }
    }

    // MARK: - Request log

    /// Every request answered so far, oldest first (up to
    /// ``Configuration/Limits/loggedRequests``; older ones are dropped). Never a query, body,
    /// token or secret: see ``LoggedRequest``.
    public var requests: [LoggedRequest] {
        engine.state.withLock { $0.log }
    }

    /// The requests to `endpoint` answered so far, oldest first.
    public func requests(to endpoint: Endpoint) -> [LoggedRequest] {
        requests.filter { $0.endpoint == endpoint }
    }

    /// Forgets the requests answered so far.
    public func clearRequests() {
        engine.state.withLock { $0.log.removeAll() }
    }

    /// Waits until `count` requests to `endpoint` have been answered or `timeout` has passed,
    /// and returns the requests to `endpoint` answered by then (possibly fewer than `count`).
    public func waitForRequests(
        to endpoint: Endpoint, count: Int = 1, timeout: Duration = .seconds(30)
    ) async -> [LoggedRequest] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let matching = requests(to: endpoint)
            if matching.count >= count || ContinuousClock.now >= deadline || Task.isCancelled { return matching }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    // MARK: - Token state

    /// Whether `accessToken` is live: issued by this provider, not revoked, not expired. For
    /// assertions such as "revocation worked".
    public func isActive(accessToken: String) -> Bool {
        let now = configuration.clock.now()
        return engine.state.withLock { $0.ledger.grant(forAccessToken: accessToken, now: now) != nil }
    }

    /// Whether `refreshToken` would be accepted now: issued, not rotated away, not revoked,
    /// not expired.
    public func isActive(refreshToken: String) -> Bool {
        let now = configuration.clock.now()
        return engine.state.withLock { $0.ledger.isLive(refreshToken: refreshToken, now: now) }
    }

    /// How many entries each of the provider's tables holds now, for tests of its bounds.
    var stateCounts: (pending: Int, browsers: Int, codes: Int, devices: Int, families: Int) {
        engine.state.withLock {
            ($0.pending.count, $0.browsers.count, $0.codes.count, $0.devices.count, $0.ledger.familyCount)
        }
    }
}
