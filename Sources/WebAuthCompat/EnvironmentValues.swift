// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    /// The values ``Environment`` reads — on Linux, only SwiftUI's ``webAuthenticationSession``.
    public struct EnvironmentValues: Sendable {
        /// The environment's values.
        public init() {}

        /// The session views use to sign people in through a web service, as SwiftUI's
        /// `EnvironmentValues.webAuthenticationSession`.
        public var webAuthenticationSession: WebAuthenticationSession {
            WebAuthenticationSession()
        }
    }
#endif
