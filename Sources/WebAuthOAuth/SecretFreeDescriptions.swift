// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import HTTPTypes
import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Printing, interpolating, `String(reflecting:)` or `dump` of the types that hold a secret
// shows everything but the secret. Each type's own file says which of its properties are secret.

extension TokenSet: CustomReflectable {
    /// A mirror without the tokens, so `dump` shows none.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "tokenType": tokenType, "hasRefreshToken": refreshToken != nil, "hasIDToken": idToken != nil,
                "idTokenClaims": idTokenClaims as Any, "expiresAt": expiresAt as Any, "scopes": scopes,
                "receivedAt": receivedAt, "dpopKey": dpopKey as Any,
            ], displayStyle: .struct)
    }
}

extension DPoPKey: CustomReflectable {
    /// A mirror with the public side only (the thumbprint and where the key lives), so `dump`
    /// never shows the private key.
    public var customMirror: Mirror {
        Mirror(self, children: ["thumbprint": thumbprint, "storage": storage], displayStyle: .struct)
    }
}

extension ClientConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The provider, client and request settings; the client secret shows as `<redacted>`.
    public var description: String {
        var parts: [String] = []
        if let issuer { parts.append("issuer: \(issuer.redactedForLogs)") }
        parts.append("clientID: \(clientID)")
        parts.append("clientSecret: \(clientSecret == nil ? "none" : "<redacted>")")
        if !scopes.isEmpty { parts.append("scopes: \(scopes.joined(separator: " "))") }
        parts.append("redirectURI: \(redirectURI.redactedForLogs)")
        parts.append("responseType: \(responseType)")
        return "ClientConfiguration(" + parts.joined(separator: ", ") + ")"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with the client secret redacted, so `dump` does not show it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "issuer": issuer as Any, "endpoints": endpoints, "clientID": clientID,
                "clientSecret": clientSecret == nil ? "none" : "<redacted>", "name": name as Any, "scopes": scopes,
                "redirectURI": redirectURI, "clientAuthentication": clientAuthentication as Any,
                "responseType": responseType, "idTokenSigningAlgorithms": idTokenSigningAlgorithms,
                "additionalAuthorizationParameters": additionalAuthorizationParameters,
                "clientKey": clientKey as Any, "clientKeyFile": clientKeyFile as Any,
                "clientAssertionAudience": clientAssertionAudience,
                "promptsConsentForOfflineAccess": promptsConsentForOfflineAccess,
            ], displayStyle: .struct)
    }
}

extension PKCE: CustomDebugStringConvertible, CustomReflectable {
    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with the challenge and method only, so `dump` never shows the verifier.
    public var customMirror: Mirror {
        Mirror(self, children: ["method": method, "challenge": challenge], displayStyle: .struct)
    }
}

extension DeviceAuthorization: CustomDebugStringConvertible, CustomReflectable {
    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the device code, so `dump` does not show it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "userCode": userCode, "verificationURI": verificationURI,
                "verificationURIComplete": verificationURIComplete as Any, "expiresAt": expiresAt,
                "interval": interval,
            ], displayStyle: .struct)
    }
}

extension AuthorizationGrant: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `code (43 characters)` or `implicit (access_token, expires_in, …)`: never a value.
    public var description: String {
        switch self {
        case .code(let code): "code (\(code.count) characters)"
        case .implicit(let parameters): "implicit (\(parameters.keys.sorted().joined(separator: ", ")))"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror that names the grant's kind and parameters, never their values.
    public var customMirror: Mirror { Mirror(self, children: ["grant": description], displayStyle: .enum) }
}

extension HTTPTransportRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The method, the URL without its query, the header field names and the body's size —
    /// never a header value (an `Authorization` field holds a secret) or the body (a token
    /// request's form holds several).
    public var description: String {
        var text = "\(method) \(url.redactedForLogs)"
        if !headerFields.isEmpty { text += " [\(headerFields.map(\.name.rawName).joined(separator: ", "))]" }
        if let body { text += " (\(body.count)-byte body)" }
        return text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with the same parts as ``description``, so `dump` shows no secret either.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method, "url": url.redactedForLogs, "headerFieldNames": headerFields.map(\.name.rawName),
                "bodyByteCount": body?.count as Any, "timeout": timeout, "maximumResponseSize": maximumResponseSize,
            ], displayStyle: .struct)
    }
}
