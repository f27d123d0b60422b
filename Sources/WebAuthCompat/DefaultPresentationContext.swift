// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    import Foundation

    /// The presentation context of sessions that have no window to offer — ``SFAuthenticationSession``
    /// and SwiftUI's ``WebAuthenticationSession`` — which answers the default anchor: the standard
    /// browser selection.
    final class DefaultPresentationContext: NSObject, ASWebAuthenticationPresentationContextProviding {
        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            ASPresentationAnchor()
        }
    }
#endif
