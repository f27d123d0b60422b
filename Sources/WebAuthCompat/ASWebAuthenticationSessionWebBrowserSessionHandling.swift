// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    public import Foundation

    /// What a browser app implements to handle other programs' sign-ins — Apple's
    /// `ASWebAuthenticationSessionWebBrowserSessionHandling`, on Linux. Set an instance as
    /// ``ASWebAuthenticationSessionWebBrowserSessionManager/sessionHandler``.
    ///
    /// Both methods are called on an arbitrary thread (Apple uses the main thread); hop to your
    /// actor if you need one.
    public protocol ASWebAuthenticationSessionWebBrowserSessionHandling: NSObjectProtocol {
        /// Starts handling `request`: open its page, and answer it once with
        /// `complete(withCallbackURL:)` or `cancelWithError(_:)`.
        func begin(_ request: ASWebAuthenticationSessionRequest!)

        /// The requesting session was cancelled (or its program went away) before `request` was
        /// answered: close its page. Answering it afterwards has no effect.
        func cancel(_ request: ASWebAuthenticationSessionRequest!)
    }
#endif
