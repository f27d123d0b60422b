// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension OAuthClient {
    /// Whether and where this sign-in pushes its authorization request, from the
    /// configuration's ``ClientConfiguration/usePushedAuthorization`` and the provider's metadata.
    ///
    /// - Throws: ``OAuthError/Code/endpointUnavailable`` when pushing is required (by the
    ///   configuration or the provider) but the provider names no endpoint;
    ///   ``OAuthError/Code/invalidConfiguration`` for ``PushedAuthorizationUse/never`` with a
    ///   provider that requires pushing.
    func pushedAuthorization(_ metadata: ProviderMetadata) throws(OAuthError) -> PushedAuthorizationRequest? {
        let required = metadata.requirePushedAuthorizationRequests == true
        let pushes: Bool
        switch configuration.usePushedAuthorization {
        case .never:
            if required {
                throw OAuthError(
                    code: .invalidConfiguration,
                    message: "the provider requires pushed authorization requests, but pushing is turned off (never)")
            }
            pushes = false
        case .always: pushes = true
        case .automatic: pushes = required
        }
        guard pushes, configuration.responseType == .code else { return nil }
        guard let endpoint = metadata.pushedAuthorizationRequestEndpoint,
            let authorizationEndpoint = metadata.authorizationEndpoint
        else {
            throw OAuthError(
                code: .endpointUnavailable, message: "the provider has no pushed authorization request endpoint")
        }
        return PushedAuthorizationRequest(
            endpoint: endpoint, authorizationEndpoint: authorizationEndpoint,
            authentication: try clientAuthentication(metadata: metadata), endpoints: endpoints, clock: clock)
    }
}
