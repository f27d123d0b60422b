// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Finds a provider's metadata from its issuer: OpenID Connect Discovery
/// (`{issuer}/.well-known/openid-configuration`), then RFC 8414
/// (`/.well-known/oauth-authorization-server{path}`). The document's `issuer` must equal the
/// configured issuer exactly — or, for a multi-tenant provider, be it with one path segment
/// replaced by `{tenantid}` (``IssuerRule``) — and every endpoint must be `https` (or loopback
/// `http`).
enum Discovery {
    static func metadata(for issuer: URL, client: EndpointClient) async throws(OAuthError) -> ProviderMetadata {
        var lastError: OAuthError?
        for url in documentURLs(for: issuer) {
            do {
                let metadata: ProviderMetadata = try await client.getJSON(url, endpoint: .discovery)
                return try checked(metadata, issuer: issuer)
            } catch let error where error.code == .unexpectedStatus || error.code == .invalidResponse {
                // Not at this address, or not a metadata document: try the next form.
                lastError = error
            }
        }
        throw OAuthError(
            code: .invalidMetadata,
            message: "no usable metadata for issuer \(issuer.absoluteString): \(lastError?.message ?? "not found")")
    }

    /// The OpenID Connect location first, then RFC 8414's (with the issuer's path after the
    /// well-known part), then the OpenID Connect name in RFC 8414's position.
    static func documentURLs(for issuer: URL) -> [URL] {
        let base =
            issuer.absoluteString.hasSuffix("/") ? String(issuer.absoluteString.dropLast()) : issuer.absoluteString
        var urls = [URL(string: base + "/.well-known/openid-configuration")]
        if var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) {
            let path = components.percentEncodedPath == "/" ? "" : components.percentEncodedPath
            components.percentEncodedPath = "/.well-known/oauth-authorization-server" + path
            urls.append(components.url)
            if !path.isEmpty {
                components.percentEncodedPath = "/.well-known/openid-configuration" + path
                urls.append(components.url)
            }
        }
        return urls.compactMap { $0 }
    }

    static func checked(_ metadata: ProviderMetadata, issuer: URL) throws(OAuthError) -> ProviderMetadata {
        guard let documentIssuer = metadata.issuer,
            IssuerRule.discovered(documentIssuer: documentIssuer, configured: issuer, allowedTenants: nil) != nil
        else {
            throw OAuthError(
                code: .invalidMetadata,
                message:
                    "the metadata names issuer '\((metadata.issuer ?? "none").safeForDisplay)', not \(issuer.absoluteString)"
            )
        }
        for (name, url) in metadata.endpointURLs {
            do {
                try EndpointPolicy.check(url, role: name)
            } catch {
                throw OAuthError(code: .invalidMetadata, message: error.message)
            }
        }
        return metadata
    }
}
