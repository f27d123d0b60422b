// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    public import Foundation
    public import WebAuth

    /// Where a web authentication session shows its browser — on Linux, the browser to use.
    ///
    /// On Apple platforms this is a window (`UIWindow`, `NSWindow`). A Linux program has no window
    /// to anchor a browser to, so the anchor chooses the browser instead: the default anchor,
    /// `ASPresentationAnchor()`, uses the standard selection (`$BROWSER`, else the desktop's
    /// browser through `xdg-open`, else the terminal when there is no display); an anchor made with
    /// ``init(browser:)`` uses that browser, such as a browser the session controls.
    ///
    /// ```swift
    /// func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
    ///     ASPresentationAnchor()   // as on Apple platforms: "the right one for this platform"
    /// }
    /// ```
    open class ASPresentationAnchor: NSObject {
        /// The browser to present in, or `nil` for the standard selection (the browser of
        /// ``ASWebAuthenticationSession/environment``, else `SessionEnvironment.standard`).
        public let browser: (any Browser)?

        /// The anchor for "wherever this platform shows sign-in pages": the standard browser.
        public override init() {
            self.browser = nil
            super.init()
        }

        /// An anchor that presents in `browser`.
        public init(browser: any Browser) {
            self.browser = browser
            super.init()
        }
    }

    /// An interface the session uses to ask for a presentation context: on Linux, an
    /// ``ASPresentationAnchor`` that chooses the browser.
    ///
    /// As on Apple platforms, a session needs a provider before it starts (see
    /// ``ASWebAuthenticationSession/start()``), and it holds the provider weakly.
    ///
    /// Unlike Apple's protocol, this one is not isolated to the main actor: a Linux program often
    /// has no main run loop. ``presentationAnchor(for:)`` is called synchronously from
    /// ``ASWebAuthenticationSession/start()``, on the thread that calls `start()`.
    public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
        /// The anchor (on Linux: the browser choice) for `session`.
        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
    }
#endif
