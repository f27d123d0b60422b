// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Everything `OAuth1Client` (in `WebAuthSignIn`) needs to know about an OAuth 1.0a provider and the client's
/// registration with it.
///
/// ```swift
/// let configuration = OAuth1Configuration(
///     consumerKey: "dpf43f3p2l4k3l03",
///     consumerSecret: "kd94hf93k423kf44",
///     requestTokenURL: URL(string: "https://photos.example.net/initiate")!,
///     authorizationURL: URL(string: "https://photos.example.net/authorize")!,
///     accessTokenURL: URL(string: "https://photos.example.net/token")!,
///     callbackURL: URL(string: "http://127.0.0.1/callback")!)
/// ```
///
/// ``description`` never shows the consumer secret.
public struct OAuth1Configuration: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The consumer key (client identifier).
    public var consumerKey: String
    /// The consumer secret (client shared secret).
    public var consumerSecret: String
    /// The temporary-credential request endpoint ("request token URL"), called with `POST`.
    public var requestTokenURL: URL
    /// The resource-owner authorization endpoint: the page the browser opens, with
    /// `oauth_token` added to its query.
    public var authorizationURL: URL
    /// The token request endpoint ("access token URL"), called with `POST`.
    public var accessTokenURL: URL
    /// Where the provider sends the browser back, sent as `oauth_callback`:
    ///
    /// - `http://127.0.0.1/callback` (the default): a loopback listener on a port the system
    ///   picks; give a port (`http://127.0.0.1:8123/callback`) if the provider insists on an
    ///   exact registered callback. `localhost` and `[::1]` work too.
    /// - `com.example.app:/oauth1`: a custom URL scheme, received by a scheme registered with
    ///   the desktop or a browser the session controls.
    /// - `https://example.com/oauth1`: an `https` URL caught by a browser the session controls.
    ///
    /// It may have no query or fragment.
    public var callbackURL: URL
    /// How requests are signed. Default ``OAuth1SignatureMethod/hmacSHA1``.
    public var signatureMethod: OAuth1SignatureMethod
    /// A `realm` for the `Authorization` header, for providers that want one. Default none.
    public var realm: String?
    /// More parameters for the temporary-credential request, sent in its form body (and so
    /// signed), such as `scope` or `x_auth_access_type`. Names starting with `oauth_` are
    /// ignored.
    public var requestTokenParameters: [String: String]

    /// `http://127.0.0.1/callback`: a loopback callback on a port chosen at sign-in.
    public static let defaultCallbackURL = URL(string: "http://127.0.0.1/callback")!

    /// Creates a configuration.
    public init(
        consumerKey: String, consumerSecret: String, requestTokenURL: URL, authorizationURL: URL,
        accessTokenURL: URL, callbackURL: URL = OAuth1Configuration.defaultCallbackURL,
        signatureMethod: OAuth1SignatureMethod = .hmacSHA1, realm: String? = nil,
        requestTokenParameters: [String: String] = [:]
    ) {
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.requestTokenURL = requestTokenURL
        self.authorizationURL = authorizationURL
        self.accessTokenURL = accessTokenURL
        self.callbackURL = callbackURL
        self.signatureMethod = signatureMethod
        self.realm = realm
        self.requestTokenParameters = requestTokenParameters
    }

    /// Checks what can be checked without the network: a consumer key, endpoints that are
    /// `https` (or `http` to a loopback address) without `oauth_` parameters in their query,
    /// and a callback the session can wait for.
    ///
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` or
    ///   ``OAuthError/Code/insecureEndpoint``; messages never quote the secret.
    public func validated() throws(OAuthError) -> OAuth1Configuration {
        guard !consumerKey.isEmpty else {
            throw OAuthError(code: .invalidConfiguration, message: "the consumer key is empty")
        }
        let endpoints = [
            ("request token URL", requestTokenURL), ("authorization URL", authorizationURL),
            ("access token URL", accessTokenURL),
        ]
        for (role, url) in endpoints {
            try EndpointPolicy.check(url, role: role)
            let names = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? []
            if names.contains(where: { $0.hasPrefix("oauth_") }) {
                throw OAuthError(
                    code: .invalidConfiguration,
                    message: "the \(role) \(url.redactedForLogs) must not have oauth_ parameters (RFC 5849 §2)")
            }
        }
        _ = try Callback.configured(callbackURL)
        return self
    }

    /// The consumer key, the endpoints and the callback; never the consumer secret.
    public var description: String {
        "OAuth1Configuration(consumerKey: \(consumerKey), consumerSecret: <redacted>, "
            + "requestTokenURL: \(requestTokenURL.redactedForLogs), "
            + "authorizationURL: \(authorizationURL.redactedForLogs), "
            + "accessTokenURL: \(accessTokenURL.redactedForLogs), callbackURL: \(callbackURL.redactedForLogs), "
            + "signatureMethod: \(signatureMethod))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the consumer secret, so `dump` does not show it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "consumerKey": consumerKey, "requestTokenURL": requestTokenURL, "authorizationURL": authorizationURL,
                "accessTokenURL": accessTokenURL, "callbackURL": callbackURL, "signatureMethod": signatureMethod,
            ])
    }
}
