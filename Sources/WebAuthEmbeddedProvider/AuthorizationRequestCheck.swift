// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// An authorization request that passed every check: what the provider remembers while the
/// person signs in and consents.
struct AuthorizationRequest: Sendable, Hashable {
    var clientID: String
    /// The redirect URI exactly as sent; the token request must send the same.
    var redirectURI: String
    var state: String?
    var scopes: [String]
    var nonce: String?
    /// The PKCE `S256` challenge.
    var codeChallenge: String
    /// The OpenID Connect `prompt` values (`none`, `login`, `consent`).
    var prompt: Set<String>
    /// The OpenID Connect `login_hint`, to prefill the username.
    var loginHint: String?
    /// `dpop_jkt` (RFC 9449 §10): the thumbprint of the key the code is bound to.
    var dpopJKT: String?
}

/// An RFC 6749 error: the `error` code, a description safe to send (never a secret, never
/// characters outside RFC 6749's `error_description` set), and the HTTP status for JSON
/// endpoints.
struct ProtocolError: Error, Sendable, Hashable {
    var code: String
    var description: String
    var status: Int = 400

    static func invalidRequest(_ description: String) -> ProtocolError {
        ProtocolError(code: "invalid_request", description: description)
    }

    static func invalidGrant(_ description: String) -> ProtocolError {
        ProtocolError(code: "invalid_grant", description: description)
    }
}

/// A problem shown to the person on an error page, because there is no client to send them
/// back to (or no safe way to).
struct PageProblem: Error, Sendable, Hashable {
    var title: String
    var message: String
    var status: Int = 400
}

/// The checks of an authorization request (RFC 6749 §4.1.1 and §4.1.2.1, RFC 7636, RFC 9700,
/// OpenID Connect Core §3.1.2), as a pure function of its parameters and the registered
/// clients.
///
/// The client and redirect URI are checked first: until both are known good, a problem is
/// shown as a page and the browser is never redirected (an open redirector otherwise). After
/// that, every problem is sent back to the client as an error redirect.
enum AuthorizationRequestCheck {
    /// What to do with a request.
    enum Outcome: Sendable, Hashable {
        /// Show an error page; do not redirect.
        case refuse(PageProblem)
        /// Redirect to `redirectURI` with the error, `state` and `iss`.
        case redirectError(redirectURI: String, state: String?, ProtocolError)
        /// A valid request.
        case accept(AuthorizationRequest)
    }

    /// The longest `state`, `nonce` or `login_hint` accepted, in bytes.
    static let maximumValueLength = 2048

    static func check(_ parameters: [(name: String, value: String)], clients: [EmbeddedProvider.Client]) -> Outcome {
        func values(_ name: String) -> [String] { parameters.filter { $0.name == name }.map(\.value) }

        let clientIDs = values("client_id")
        guard clientIDs.count <= 1 else {
            return .refuse(PageProblem(title: "Invalid request", message: "The request names client_id twice."))
        }
        guard let clientID = clientIDs.first, !clientID.isEmpty else {
            return .refuse(PageProblem(title: "Invalid request", message: "The request has no client_id."))
        }
        guard let client = clients.first(where: { $0.id == clientID }) else {
            return .refuse(
                PageProblem(
                    title: "Unknown application", message: "No application is registered with this client ID."))
        }
        let redirectURIs = values("redirect_uri")
        guard redirectURIs.count <= 1 else {
            return .refuse(PageProblem(title: "Invalid request", message: "The request names redirect_uri twice."))
        }
        guard let redirectURI = redirectURIs.first, !redirectURI.isEmpty else {
            return .refuse(PageProblem(title: "Invalid request", message: "The request has no redirect_uri."))
        }
        guard
            RedirectURIRule.isRegistered(
                redirectURI, in: client.redirectURIs, exactly: client.matchesRedirectURIsExactly)
        else {
            return .refuse(
                PageProblem(
                    title: "Unregistered redirect URI",
                    message: "The application asked to return to an address it has not registered."))
        }

        // From here on the client can be told.
        let states = values("state")
        let state = states.first
        func fail(_ error: ProtocolError) -> Outcome {
            .redirectError(redirectURI: redirectURI, state: state, error)
        }
        var seen = Set<String>()
        for parameter in parameters where !seen.insert(parameter.name).inserted {
            let name = parameter.name.isSafeProtocolToken ? parameter.name : "a parameter"
            return fail(.invalidRequest("\(name) is repeated"))
        }
        let single = Dictionary(parameters.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })

        guard let responseType = single["response_type"], !responseType.isEmpty else {
            return fail(.invalidRequest("response_type is required"))
        }
        guard responseType == "code" else {
            return fail(ProtocolError(code: "unsupported_response_type", description: "only response_type code"))
        }
        if let mode = single["response_mode"], mode != "query" {
            return fail(.invalidRequest("only response_mode query is supported"))
        }
        if single["request"] != nil {
            return fail(ProtocolError(code: "request_not_supported", description: "request objects are not supported"))
        }
        if single["request_uri"] != nil {
            return fail(
                ProtocolError(code: "request_uri_not_supported", description: "request_uri is not supported"))
        }
        guard let challenge = single["code_challenge"], !challenge.isEmpty else {
            return fail(.invalidRequest("PKCE is required: send code_challenge with code_challenge_method S256"))
        }
        // RFC 7636 §4.3: an absent method means plain, which is not accepted.
        guard single["code_challenge_method"] == "S256" else {
            return fail(.invalidRequest("code_challenge_method must be S256"))
        }
        guard ProviderSecrets.isValidS256Challenge(challenge) else {
            return fail(.invalidRequest("code_challenge is not an S256 challenge"))
        }
        for name in ["state", "nonce", "login_hint"] where (single[name]?.utf8.count ?? 0) > maximumValueLength {
            return fail(.invalidRequest("\(name) is too long"))
        }

        let scopes = (single["scope"] ?? "").split(separator: " ").map(String.init)
        for scope in scopes where !client.allowedScopes.contains(scope) {
            let shown = scope.isSafeProtocolToken ? "'\(scope)'" : "a requested scope"
            return fail(ProtocolError(code: "invalid_scope", description: "\(shown) is not allowed for this client"))
        }

        let prompt = Set((single["prompt"] ?? "").split(separator: " ").map(String.init))
        if prompt.contains("none"), prompt.count > 1 {
            return fail(.invalidRequest("prompt none cannot be combined with other values"))
        }

        var uniqueScopes: [String] = []
        for scope in scopes where !uniqueScopes.contains(scope) { uniqueScopes.append(scope) }
        return .accept(
            AuthorizationRequest(
                clientID: clientID, redirectURI: redirectURI, state: state, scopes: uniqueScopes,
                nonce: single["nonce"], codeChallenge: challenge, prompt: prompt, loginHint: single["login_hint"],
                dpopJKT: single["dpop_jkt"]))
    }
}

/// Whether a redirect URI is registered: exactly, or for a loopback one, on any port
/// (RFC 8252 §7.3) unless the client's registration matches `exactly`.
enum RedirectURIRule {
    static func isRegistered(_ candidate: String, in registered: [URL], exactly: Bool = false) -> Bool {
        guard let components = URLComponents(string: candidate), components.fragment == nil,
            components.scheme != nil
        else { return false }
        return registered.contains { uri in
            if candidate == uri.absoluteString { return true }
            guard !exactly else { return false }
            guard let expected = URLComponents(url: uri, resolvingAgainstBaseURL: false),
                isLoopback(expected), isLoopback(components)
            else { return false }
            return components.scheme?.lowercased() == "http" && expected.scheme?.lowercased() == "http"
                && host(of: components) == host(of: expected) && components.user == nil
                && components.password == nil
                && components.percentEncodedPath == expected.percentEncodedPath
                && components.percentEncodedQuery == expected.percentEncodedQuery
        }
    }

    /// Whether the URL's host is a loopback IP literal (`127.0.0.1` or `[::1]`). `localhost`
    /// is not: RFC 8252 §8.3 advises against it.
    static func isLoopback(_ components: URLComponents) -> Bool {
        ["127.0.0.1", "::1"].contains(host(of: components))
    }

    private static func host(of components: URLComponents) -> String {
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.lowercased()
    }
}

extension String {
    /// Whether the string may be quoted in an `error_description`: printable ASCII except
    /// `"` and `\` (RFC 6749 §5.2), and not long.
    var isSafeProtocolToken: Bool {
        !isEmpty && utf8.count <= 64
            && utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }
}
