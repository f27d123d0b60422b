// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import WebAuthCore

/// A browser the provider has set its cookie in, and who is signed in there.
struct BrowserRecord: Sendable {
    /// The sign-in session, once the person has logged in.
    var signIn: SignIn?
}

/// A person signed in in a browser.
struct SignIn: Sendable, Hashable {
    var subject: String
    var authenticatedAt: Date
    var expiresAt: Date
}

/// An authorization (or device approval) waiting for the person: the login form or the
/// consent page is open.
struct PendingAuthorization: Sendable {
    /// What the person is approving.
    enum Purpose: Sendable {
        /// A client's authorization request; ends in a redirect.
        case authorization(AuthorizationRequest)
        /// A device authorization, by the key of its ``DeviceGrant``; ends in a page.
        case device(deviceKey: String)
    }

    /// Where the person is.
    enum Stage: Sendable, Hashable {
        case login
        case consent(subject: String, authenticatedAt: Date)
    }

    var purpose: Purpose
    var clientID: String
    var scopes: [String]
    /// The digest of the browser cookie it is bound to.
    var browser: String
    var stage: Stage
    var failedLogins = 0

    /// How many wrong passwords end the attempt.
    static let maximumFailedLogins = 5
}

/// An authorization code: single use, bound to the client, redirect URI and PKCE challenge.
struct CodeGrant: Sendable {
    var request: AuthorizationRequest
    var grant: TokenGrant
    /// Presented once already (successfully or not).
    var redeemed = false
    /// The token family the code produced, revoked if the code comes back.
    var family: Int?
    /// When the code can no longer be exchanged.
    var expiresAt: Date
}

/// A device authorization (RFC 8628) and how far it has got.
struct DeviceGrant: Sendable {
    enum Status: Sendable {
        case pending
        case approved(TokenGrant)
        case denied
        case redeemed
    }

    var clientID: String
    var scopes: [String]
    var userCode: String
    /// The polling interval in seconds; `slow_down` adds 5 (RFC 8628 §3.5).
    var interval: Int
    /// When the device last polled (initially, when the code was issued).
    var lastPolledAt: Date
    var status: Status
}

/// Everything the provider knows, kept under one lock.
struct ProviderState: Sendable {
    let configuration: EmbeddedProvider.Configuration
    var keys: SigningKeySet
    var faults: [EmbeddedProvider.Endpoint: EmbeddedProvider.Fault] = [:]
    var claimOverrides: EmbeddedProvider.IDTokenClaimOverrides?
    var browsers: BoundedTable<BrowserRecord>
    var pending: BoundedTable<PendingAuthorization>
    var codes: BoundedTable<CodeGrant>
    var devices: BoundedTable<DeviceGrant>
    var ledger: TokenLedger
    /// Pushed authorization requests (RFC 9126), by `request_uri`; each opens once.
    var pushedRequests: BoundedTable<AuthorizationRequest>
    /// The `jti` of every DPoP proof accepted within its window, so none is accepted twice.
    var seenProofs: BoundedTable<Bool>
    /// The client ID and `jti` of every client assertion accepted, until it expires, so none
    /// is accepted twice.
    var seenAssertions: BoundedTable<Bool>
    /// The current `DPoP-Nonce`.
    var dpopNonce = ProviderSecrets.randomToken()
    var log: [EmbeddedProvider.LoggedRequest] = []
    /// The key CSRF tokens are derived from: a token is the HMAC of the browser cookie.
    let csrfKey = SymmetricKey(size: .bits256)

    /// How long a pending authorization waits for the person.
    static let pendingLifetime: Duration = .seconds(900)

    init(configuration: EmbeddedProvider.Configuration, key: SigningKey) {
        self.configuration = configuration
        keys = SigningKeySet(current: key)
        let limits = configuration.limits
        browsers = BoundedTable(capacity: limits.browsers)
        pending = BoundedTable(capacity: limits.pendingAuthorizations)
        codes = BoundedTable(capacity: limits.authorizationCodes)
        pushedRequests = BoundedTable(capacity: limits.pendingAuthorizations)
        seenProofs = BoundedTable(capacity: limits.loggedRequests * 10)
        seenAssertions = BoundedTable(capacity: limits.loggedRequests * 10)
        devices = BoundedTable(capacity: limits.deviceAuthorizations)
        ledger = TokenLedger(
            policy: .init(
                accessTokenLifetime: configuration.accessTokenLifetime,
                refreshTokenLifetime: configuration.refreshTokenLifetime,
                rotatesRefreshTokens: configuration.rotatesRefreshTokens),
            capacity: limits.tokenFamilies)
    }

    /// The fault set for `endpoint`, counting this request against its ``Fault/remaining``.
    mutating func takeFault(for endpoint: EmbeddedProvider.Endpoint?) -> EmbeddedProvider.Fault? {
        guard let endpoint, let fault = faults[endpoint] else { return nil }
        if let remaining = fault.remaining {
            if remaining <= 1 { faults[endpoint] = nil } else { faults[endpoint]?.remaining = remaining - 1 }
            if remaining <= 0 { return nil }
        }
        return fault
    }

    /// Appends to the request log, dropping the oldest entries beyond the limit.
    mutating func record(_ entry: EmbeddedProvider.LoggedRequest) {
        log.append(entry)
        let limit = configuration.limits.loggedRequests
        if log.count > limit { log.removeFirst(log.count - limit) }
    }

    /// The CSRF token for the browser whose cookie has digest `browser`.
    func csrfToken(forBrowser browser: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data(("csrf:" + browser).utf8), using: csrfKey))
            .base64URLEncodedString()
    }

    /// The live sign-in in the browser with digest `browser`, if any.
    func signIn(browser: String?, now: Date) -> SignIn? {
        guard let browser, let signIn = browsers.value(for: browser, now: now)?.signIn, signIn.expiresAt > now else {
            return nil
        }
        return signIn
    }
}
