// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// On Apple platforms this module is Apple's AuthenticationServices — with SwiftUI, whose
// `WebAuthenticationSession` and `EnvironmentValues.webAuthenticationSession` live in their
// cross-import overlay —, nothing else. Elsewhere it provides the same names (see
// ASWebAuthenticationSession and WebAuthenticationSession) and, as AuthenticationServices does,
// Foundation.
#if canImport(AuthenticationServices)
    @_exported import AuthenticationServices
    #if canImport(SwiftUI)
        @_exported import SwiftUI
    #endif
    #if canImport(_AuthenticationServices_SwiftUI)
        @_exported import _AuthenticationServices_SwiftUI
    #endif
#else
    @_exported import Foundation
#endif
