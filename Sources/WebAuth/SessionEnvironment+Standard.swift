// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation

extension SessionEnvironment {
    /// The receivers every standard environment has: the loopback listener and the desktop's
    /// registered URL schemes.
    public static var standardReceivers: [any CallbackReceiver] { [LoopbackReceiver(), DesktopSchemeReceiver()] }

    /// The standard environment: the browser chosen per session by
    /// ``BrowserSelection/fromEnvironment(_:)`` (see ``BrowserSelection`` for the rules), and
    /// the ``standardReceivers``.
    public static var standard: SessionEnvironment {
        standard(selection: .fromEnvironment())
    }

    /// The standard receivers with browsers chosen by `selection`.
    public static func standard(selection: BrowserSelection) -> SessionEnvironment {
        SessionEnvironment(receivers: standardReceivers) { needs in selection.browser(for: needs) }
    }

    /// The standard receivers with a browser of your choice.
    ///
    /// ```swift
    /// let session = WebAuthSession(
    ///     url: url, callback: .loopback(), environment: .standard(browser: TerminalPresenter()))
    /// ```
    public static func standard(browser: any Browser) -> SessionEnvironment {
        SessionEnvironment(browser: browser, receivers: standardReceivers)
    }
}

extension WebAuthSession {
    /// Creates a session for a fixed authorization URL in the ``SessionEnvironment/standard``
    /// environment.
    ///
    /// ```swift
    /// let session = WebAuthSession(
    ///     url: URL(string: "https://example.com/auth")!, callback: .customScheme("exampleauth")
    /// ) { result in
    ///     // Handle the received callback (its URL and redirect URI) or the error.
    /// }
    /// session.start()
    /// ```
    public convenience init(url: URL, callback: Callback, completionHandler: CompletionHandler? = nil) {
        self.init(url: url, callback: callback, environment: .standard, completionHandler: completionHandler)
    }

    /// Creates a session whose authorization URL is built from the redirect URI, in the
    /// ``SessionEnvironment/standard`` environment. See
    /// `WebAuthSession.init(callback:environment:authorizationURL:completionHandler:)`.
    public convenience init(
        callback: Callback,
        authorizationURL: @escaping @Sendable (_ redirectURI: URL) -> URL,
        completionHandler: CompletionHandler? = nil
    ) {
        self.init(
            callback: callback, environment: .standard, authorizationURL: authorizationURL,
            completionHandler: completionHandler)
    }
}
