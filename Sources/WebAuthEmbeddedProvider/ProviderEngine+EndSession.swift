// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import WebAuthCore
import WebAuthPlatform

/// An end-session request that passed every check.
struct AcceptedEndSession: Sendable, Hashable {
    /// The client the ID token hint was issued to.
    var clientID: String
    /// The person the ID token hint names.
    var subject: String
    /// Where to send the browser afterwards, as sent; `nil` for none.
    var postLogoutRedirectURI: String?
    /// The `state` to send back.
    var state: String?
}

/// The checks of an end-session request (OpenID Connect RP-Initiated Logout 1.0 §2, §3), as a
/// pure function of its parameters, the registered clients and the provider's keys.
///
/// Stricter than the specification requires, as a reference should be: the request must carry
/// an `id_token_hint` this provider signed (with a key it still holds; an expired hint is
/// accepted, §2), for this issuer; `client_id`, when sent, must be one of the hint's
/// audiences; `post_logout_redirect_uri`, when sent, must be registered for that client.
/// Every problem is shown as a page: the browser is never sent anywhere unchecked.
enum EndSessionCheck {
    /// What to do with a request.
    enum Outcome: Sendable, Hashable {
        /// Show an error page; do not redirect.
        case refuse(PageProblem)
        /// A valid request.
        case accept(AcceptedEndSession)
    }

    /// The longest `state` accepted, in bytes.
    static let maximumStateLength = 2048

    static func check(
        _ parameters: [(name: String, value: String)], clients: [EmbeddedProvider.Client], issuer: String,
        keys: [SigningKey]
    ) -> Outcome {
        func refuse(_ message: String, title: String = "Invalid sign-out request") -> Outcome {
            .refuse(PageProblem(title: title, message: message))
        }
        var seen = Set<String>()
        for parameter in parameters where !seen.insert(parameter.name).inserted {
            let name = parameter.name.isSafeProtocolToken ? parameter.name : "a parameter"
            return refuse("The request names \(name) twice.")
        }
        let single = Dictionary(parameters.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let hint = single["id_token_hint"], !hint.isEmpty else {
            return refuse("The request has no id_token_hint, so it does not say whose session to end.")
        }
        guard let claims = IDTokenHint.verified(hint, keys: keys), claims.issuer == issuer else {
            return refuse("The id_token_hint is not an ID token this provider issued.")
        }
        let clientID: String
        if let named = single["client_id"] {
            guard claims.audience.contains(named) else {
                return refuse("The client_id is not an audience of the id_token_hint.")
            }
            clientID = named
        } else {
            guard let only = claims.authorizedParty ?? (claims.audience.count == 1 ? claims.audience.first : nil)
            else { return refuse("The request has no client_id, and the id_token_hint names several clients.") }
            clientID = only
        }
        guard let client = clients.first(where: { $0.id == clientID }) else {
            return refuse("No application is registered with this client ID.", title: "Unknown application")
        }
        let redirectURI = single["post_logout_redirect_uri"]
        if let redirectURI {
            guard !redirectURI.isEmpty,
                RedirectURIRule.isRegistered(
                    redirectURI, in: client.registeredPostLogoutRedirectURIs, exactly: client.matchesRedirectURIsExactly
                )
            else {
                return refuse(
                    "The application asked to return to an address it has not registered for after signing out.",
                    title: "Unregistered redirect URI")
            }
        }
        let state = single["state"]
        if let state, state.utf8.count > maximumStateLength { return refuse("The state is too long.") }
        return .accept(
            AcceptedEndSession(
                clientID: clientID, subject: claims.subject, postLogoutRedirectURI: redirectURI, state: state))
    }
}

/// The claims of an `id_token_hint` the provider needs, once its signature has verified.
struct IDTokenHint: Sendable, Hashable {
    var issuer: String
    var subject: String
    var audience: [String]
    var authorizedParty: String?

    /// The hint's claims when it is a compact JWS signed RS256 by one of `keys` (by `kid`),
    /// with `iss`, `sub` and `aud`; otherwise `nil`. Times are not checked: RP-Initiated Logout
    /// §2 asks providers to accept an expired ID token as a hint.
    static func verified(_ token: String, keys: [SigningKey]) -> IDTokenHint? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Data(base64URLEncoded: String(parts[0])),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            header["alg"] as? String == "RS256", let keyID = header["kid"] as? String,
            let key = keys.first(where: { $0.keyID == keyID }),
            let signatureData = Data(base64URLEncoded: String(parts[2]))
        else { return nil }
        let signingInput = Data((parts[0] + "." + parts[1]).utf8)
        let signature = _RSA.Signing.RSASignature(rawRepresentation: signatureData)
        guard
            key.privateKey.publicKey.isValidSignature(
                signature, for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5),
            let payloadData = Data(base64URLEncoded: String(parts[1])),
            let payload = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any],
            let issuer = payload["iss"] as? String, let subject = payload["sub"] as? String, !subject.isEmpty
        else { return nil }
        let audience: [String]
        switch payload["aud"] {
        case let single as String: audience = [single]
        case let several as [String]: audience = several
        default: return nil
        }
        guard !audience.isEmpty else { return nil }
        return IDTokenHint(
            issuer: issuer, subject: subject, audience: audience, authorizedParty: payload["azp"] as? String)
    }
}

extension ProviderEngine {
    // MARK: - GET or POST /end_session

    /// Ends the browser's sign-in (OpenID Connect RP-Initiated Logout 1.0) after
    /// ``EndSessionCheck``, then redirects to the registered `post_logout_redirect_uri` with
    /// `state`, or shows a page saying the person is signed out.
    ///
    /// A browser signed in as someone else than the hint names is not signed out: the
    /// specification has the provider ask the person then, and this provider has no such page,
    /// so it refuses.
    func endSession(_ request: ServerRequest) -> Answer {
        let parameters: [(name: String, value: String)]
        switch request.method {
        case "GET": parameters = ProviderHTTP.queryParameters(request)
        // §2: the endpoint takes POST forms too.
        case "POST": parameters = ProviderHTTP.formParameters(request) ?? []
        default: return Answer(ProviderHTTP.methodNotAllowed(["GET", "POST"]))
        }
        let keys = state.withLock { $0.keys.keys }
        let accepted: AcceptedEndSession
        switch EndSessionCheck.check(parameters, clients: clients, issuer: tokenIssuer, keys: keys) {
        case .refuse(let problem): return problemPage(problem)
        case .accept(let request): accepted = request
        }
        let now = clock.now()
        let cookie = ProviderHTTP.cookie(ProviderHTTP.browserCookieName, in: request)
        return state.withLock { state in
            if let cookie {
                let browser = ProviderSecrets.digest(cookie)
                if let signIn = state.signIn(browser: browser, now: now) {
                    guard signIn.subject == accepted.subject else {
                        return problemPage(
                            PageProblem(
                                title: "Not signed out",
                                message:
                                    "This browser is signed in as someone else than the application asked to sign out.",
                                status: 403))
                    }
                }
                // The cookie names nothing any more; a later visit gets a fresh one.
                _ = state.browsers.remove(browser)
            }
            guard let redirectURI = accepted.postLogoutRedirectURI else {
                return Answer(ProviderHTTP.page(ProviderPages.signedOut(providerName: configuration.displayName)))
            }
            return Answer(
                ProviderHTTP.redirect(
                    to: ProviderHTTP.location(redirectURI, adding: [("state", accepted.state)]), status: 302))
        }
    }
}
