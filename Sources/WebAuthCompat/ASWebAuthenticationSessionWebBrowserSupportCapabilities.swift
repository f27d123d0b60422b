// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    public import WebAuth

    /// The capabilities a browser app declares — on Apple platforms the
    /// `ASWebAuthenticationSessionWebBrowserSupportCapabilities` dictionary of its `Info.plist`,
    /// with the keys `IsSupported`, `EphemeralBrowserSessionIsSupported` and
    /// `CallbackURLMatchingIsSupported`; on Linux the same keys in the desktop entry that
    /// `webauth browser register` writes (see `AuthenticationBrowserRegistry`).
    public typealias ASWebAuthenticationSessionWebBrowserSupportCapabilities = AuthenticationBrowserCapabilities
#endif
