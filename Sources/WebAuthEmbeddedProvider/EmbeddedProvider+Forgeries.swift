// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

// Forgeries no honest provider commits, for testing that a client refuses them: a wrong or
// missing `iss` or `state` in the authorization response, discovery metadata naming another
// issuer, and ID tokens that are unsigned or whose signature does not check out. Each one is
// off until a test switches it on, and leaves the rest of the provider as strict as ever.
extension EmbeddedProvider {
    /// One parameter of a forged authorization response: left out, or replaced.
    public enum ForgedParameter: Sendable, Hashable {
        /// The parameter is left out.
        case absent
        /// The parameter carries this value instead of the right one.
        case value(String)
    }

    /// Changes to the authorization responses `/authorize` redirects back with (the code and
    /// the error ones alike), for testing a client's callback checks. `nil` members leave the
    /// parameter as it would be.
    ///
    /// ```swift
    /// provider.overrideAuthorizationResponse(.init(issuer: .value("https://evil.example")))  // mix-up
    /// provider.overrideAuthorizationResponse(.init(state: .absent))                          // no state
    /// provider.overrideAuthorizationResponse(.init(additionalParameters: ["access_token": "x"]))
    /// provider.overrideAuthorizationResponse(                                                // implicit-style
    ///     .init(code: .absent, fragmentParameters: ["access_token": "x", "token_type": "Bearer"]))
    /// provider.overrideAuthorizationResponse(nil)                                            // correct again
    /// ```
    public struct AuthorizationResponseOverrides: Sendable, Hashable {
        /// The `iss` parameter (RFC 9207) instead of the issuer.
        public var issuer: ForgedParameter?
        /// The `state` parameter instead of the one the client sent.
        public var state: ForgedParameter?
        /// The `code` parameter of a successful response instead of the code issued (the
        /// issued one still works at the token endpoint, for a client that gets hold of it).
        public var code: ForgedParameter?
        /// Parameters added after the others, such as an `access_token` in the query, where
        /// no token may ever be (RFC 9700 §2.1.2), or an `error_uri` in an error response.
        public var additionalParameters: [String: String]
        /// Parameters sent in the redirect URI's fragment, as the implicit flow returns tokens;
        /// empty: no fragment.
        public var fragmentParameters: [String: String]

        /// Creates overrides; leave out what should stay correct.
        public init(
            issuer: ForgedParameter? = nil, state: ForgedParameter? = nil, code: ForgedParameter? = nil,
            additionalParameters: [String: String] = [:], fragmentParameters: [String: String] = [:]
        ) {
            self.issuer = issuer
            self.state = state
            self.code = code
            self.additionalParameters = additionalParameters
            self.fragmentParameters = fragmentParameters
        }

        /// The redirect to `redirectURI` with `leading` (`code`, or `error` and its
        /// description), `state` and `iss`, overridden as asked.
        func location(_ redirectURI: String, leading: [(String, String?)], state: String?, issuer: String) -> String {
            func forged(_ override: ForgedParameter?, _ value: String?) -> String? {
                switch override {
                case nil: value
                case .absent: nil
                case .value(let forged): forged
                }
            }
            let parameters =
                leading.map { name, value in (name, name == "code" ? forged(code, value) : value) }
                + [("state", forged(self.state, state)), ("iss", forged(self.issuer, issuer))]
                + additionalParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            let location = ProviderHTTP.location(redirectURI, adding: parameters)
            guard !fragmentParameters.isEmpty else { return location }
            return location + "#"
                + FormCoding.encode(fragmentParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
    }

    /// Changes to the discovery documents (both of them), for testing how a client checks the
    /// metadata it is given. `nil` members leave the document as it would be.
    ///
    /// ```swift
    /// provider.overrideMetadata(.init(issuer: "https://evil.example"))   // not the issuer asked
    /// provider.overrideMetadata(.init(removedMembers: ["jwks_uri"]))     // an endpoint missing
    /// provider.overrideMetadata(.init(changedMembers: ["token_endpoint": "http://evil.example/token"]))
    /// ```
    public struct MetadataOverrides: Sendable, Hashable {
        /// `issuer` instead of the provider's issuer identifier.
        public var issuer: String?
        /// `authorization_response_iss_parameter_supported` instead of `true`. (Authorization
        /// responses carry `iss` whatever this says; see ``AuthorizationResponseOverrides``.)
        public var promisesIssuerInAuthorizationResponses: Bool?
        /// Members left out altogether, by name (`jwks_uri`, `token_endpoint`, …).
        public var removedMembers: Set<String>
        /// Members set to these strings instead, by name, such as a `token_endpoint` on
        /// another host or over plain HTTP.
        public var changedMembers: [String: String]

        /// Creates overrides; leave out what should stay correct.
        public init(
            issuer: String? = nil, promisesIssuerInAuthorizationResponses: Bool? = nil,
            removedMembers: Set<String> = [], changedMembers: [String: String] = [:]
        ) {
            self.issuer = issuer
            self.promisesIssuerInAuthorizationResponses = promisesIssuerInAuthorizationResponses
            self.removedMembers = removedMembers
            self.changedMembers = changedMembers
        }
    }

    /// A way of signing ID tokens that a client must refuse, for testing its ID token
    /// validation. The claims are as they would be (or as ``IDTokenClaimOverrides`` make them).
    ///
    /// ```swift
    /// provider.forgeIDTokenSignatures(.unsigned)                 // {"alg":"none"}, no signature
    /// provider.forgeIDTokenSignatures(.hmacWithPublicKey)        // the key-confusion attack
    /// provider.forgeIDTokenSignatures(nil)                       // signed properly again
    /// ```
    public enum IDTokenSignatureForgery: Sendable, Hashable, CaseIterable {
        /// `alg: none` and an empty signature (RFC 7519 §6).
        case unsigned
        /// RS256 under the signing key's `kid`, with a signature that does not verify.
        case invalidSignature
        /// RS256 by the signing key, but under a `kid` the JWKS does not serve.
        case unknownKeyID
        /// HS256 keyed with the signing key's public key in PEM, under its `kid`: the
        /// "key confusion" a client falls for when it lets the token choose the algorithm.
        case hmacWithPublicKey
        /// RS256 under the signing key's `kid`, but by another RSA key that the JWKS never
        /// serves: an impostor's token. (The provider makes that key the first time it is
        /// needed.)
        case signedByAnotherKey
        /// RS256 by the signing key with no `kid` in the header. Not a forgery as such: a
        /// client may take it while the JWKS holds one key, and must refuse it once the JWKS
        /// holds several (after ``EmbeddedProvider/rotateSigningKey()``), since it cannot
        /// tell which key is meant.
        case withoutKeyID
        /// HS256 keyed with a fixed string (`secret`): a public client has no secret to check
        /// it with, so it must refuse HMAC altogether.
        case hmacWithArbitrarySecret
        /// A valid RS384 signature by the signing key, under its `kid`: a client that expects
        /// RS256 must refuse an algorithm it did not ask for.
        case signedWithRS384
        /// A valid PS256 (RSASSA-PSS) signature by the signing key, under its `kid`.
        case signedWithPS256
        /// A valid ES256 signature by the provider's P-256 key, which the JWKS serves (next to
        /// the RSA keys) while this forgery is on. A client configured for ES256 takes it.
        case signedWithES256
        /// ES256 under the `kid` of the provider's served P-256 key, but by another P-256 key.
        case signedWithES256ByAnotherKey
    }

    /// Changes the authorization responses `/authorize` redirects with from now on; `nil`
    /// makes them correct again.
    public func overrideAuthorizationResponse(_ overrides: AuthorizationResponseOverrides?) {
        engine.forgeries.withLock { $0.authorizationResponse = overrides }
    }

    /// Changes the discovery documents served from now on; `nil` makes them correct again.
    public func overrideMetadata(_ overrides: MetadataOverrides?) {
        engine.forgeries.withLock { $0.metadata = overrides }
    }

    /// Signs the ID tokens issued from now on as `forgery` says; `nil` signs them properly
    /// again.
    public func forgeIDTokenSignatures(_ forgery: IDTokenSignatureForgery?) {
        engine.forgeries.withLock { $0.idTokenSignature = forgery }
    }

    /// Answers UserInfo requests from now on with `sub` set to `subject` instead of the
    /// signed-in person's — a response a client must not merge with the ID token's identity
    /// (OpenID Connect Core §5.3.2); `nil` answers correctly again.
    ///
    /// ```swift
    /// provider.forgeUserInfoSubject("someone-else")
    /// ```
    public func forgeUserInfoSubject(_ subject: String?) {
        engine.forgeries.withLock { $0.userInfoSubject = subject }
    }
}

/// The forgeries switched on.
struct Forgeries: Sendable {
    var authorizationResponse: EmbeddedProvider.AuthorizationResponseOverrides?
    var metadata: EmbeddedProvider.MetadataOverrides?
    var idTokenSignature: EmbeddedProvider.IDTokenSignatureForgery?
    var userInfoSubject: String?
    var tokenResponseMembers: [String: EmbeddedProvider.ForgedJSONValue]?
    var deviceAuthorizationMembers: [String: EmbeddedProvider.ForgedJSONValue]?
    var withholdsIDTokenOnRefresh = false
    /// The subject device authorizations are approved for as soon as they are made.
    var deviceApprover: String?
}

extension EmbeddedProvider.MetadataOverrides {
    /// The document `json` (a JSON object) with the overrides applied.
    func applied(to json: Data) -> Data {
        guard var members = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else { return json }
        if let issuer { members["issuer"] = issuer }
        if let promisesIssuerInAuthorizationResponses {
            members["authorization_response_iss_parameter_supported"] = promisesIssuerInAuthorizationResponses
        }
        for (name, value) in changedMembers { members[name] = value }
        for name in removedMembers { members[name] = nil }
        return (try? JSONSerialization.data(withJSONObject: members, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? json
    }
}
