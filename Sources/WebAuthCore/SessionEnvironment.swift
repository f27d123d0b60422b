// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The parts a ``WebAuthSession`` works with: the browser it presents in (fixed, or
/// chosen per session from its ``BrowserNeeds``) and the receivers that can catch callbacks
/// outside the browser.
///
/// `import WebAuth` gives `SessionEnvironment.standard` (the person's browser, or the terminal
/// when there is no display, plus the loopback listener) and initializers that use it. Pass your
/// own environment to choose a browser or to test with stand-ins:
///
/// ```swift
/// let environment = SessionEnvironment(browser: myBrowser, receivers: [LoopbackReceiver()])
/// let choosing = SessionEnvironment(receivers: [LoopbackReceiver()]) { needs in
///     needs.prefersEphemeralSession ? controlledBrowser : myBrowser
/// }
/// let session = WebAuthSession(url: url, callback: .loopback(), environment: environment)
/// ```
public struct SessionEnvironment: Sendable {
    /// Receivers tried in order for callbacks the browser cannot catch itself.
    public var receivers: [any CallbackReceiver]
    private let chooseBrowser: @Sendable (BrowserNeeds) -> any Browser

    /// Creates an environment that always presents in `browser`.
    public init(browser: any Browser, receivers: [any CallbackReceiver]) {
        self.receivers = receivers
        self.chooseBrowser = { _ in browser }
    }

    /// Creates an environment that chooses a browser for each session when it starts, from what
    /// that session needs.
    public init(receivers: [any CallbackReceiver], choosingBrowser: @escaping @Sendable (BrowserNeeds) -> any Browser) {
        self.receivers = receivers
        self.chooseBrowser = choosingBrowser
    }

    /// The browser for a session with these needs.
    public func browser(for needs: BrowserNeeds) -> any Browser { chooseBrowser(needs) }

    /// The callback registered for this program with the first receiver that keeps
    /// registrations (see ``CallbackReceiver/registeredCallback()``).
    ///
    /// - Throws: ``WebAuthenticationSessionError/Code/noCallbackReceiver`` when none is
    ///   registered, or no receiver keeps registrations.
    public func registeredCallback() throws(WebAuthenticationSessionError) -> Callback {
        for receiver in receivers {
            if let callback = try receiver.registeredCallback() { return callback }
        }
        throw .noCallbackReceiver(
            "no callback was given and nothing here knows the schemes registered with the desktop; give one")
    }
}
