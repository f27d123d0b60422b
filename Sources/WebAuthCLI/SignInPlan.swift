// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// How `webauth login` signs in, decided from the flags and the situation alone.
struct SignInPlan: Equatable, Sendable {
    /// The ways to sign in.
    enum Method: String, Equatable, Sendable {
        /// A browser on this machine, chosen by `BrowserSelection` (or `--browser`).
        case browser
        /// The URL is printed; the person signs in anywhere and pastes the redirect back.
        case pastedRedirect = "pasted-redirect"
        /// The device authorization grant (RFC 8628): a code to confirm on another device.
        case device
        /// The client credentials grant (RFC 6749 §4.4): the client as itself, no person.
        case clientCredentials = "client-credentials"
    }

    /// The way chosen.
    var method: Method
    /// Why, when `webauth` chose it rather than a flag: said on standard error.
    var reason: String?

    /// What the decision needs to know.
    struct Situation: Equatable, Sendable {
        /// The configuration's grant is the client credentials grant (`--client-credentials`).
        var clientCredentials = false
        /// `--device`.
        var deviceRequested = false
        /// `--no-browser`.
        var noBrowserRequested = false
        /// Whether the browser selection opens a browser, or prints the URL because it is an
        /// explicit choice (`--browser none`): false only when `BrowserSelection.fallsBackToTerminal`,
        /// which applies the display and `$BROWSER` rules.
        var opensBrowser = true
        /// Whether the provider's metadata names a device authorization endpoint; `nil` when
        /// not looked up.
        var providerOffersDevice: Bool?
    }

    /// Whether ``choose(_:)`` would use ``Situation/providerOffersDevice``: only when no flag
    /// decides and no browser would open.
    static func needsProviderMetadata(_ situation: Situation) -> Bool {
        !situation.clientCredentials && !situation.deviceRequested && !situation.noBrowserRequested
            && !situation.opensBrowser
    }

    /// The client credentials grant → that grant, with no browser; `--device` → the device
    /// flow; `--no-browser` → the pasted redirect; a browser that opens → the browser; otherwise
    /// the device flow when the provider offers it, else the pasted redirect.
    static func choose(_ situation: Situation) -> SignInPlan {
        if situation.clientCredentials { return SignInPlan(method: .clientCredentials) }
        if situation.deviceRequested { return SignInPlan(method: .device) }
        if situation.noBrowserRequested { return SignInPlan(method: .pastedRedirect) }
        guard needsProviderMetadata(situation) else { return SignInPlan(method: .browser) }
        if situation.providerOffersDevice == true {
            return SignInPlan(
                method: .device,
                reason: "No display here: signing in with the device flow (the provider supports it).")
        }
        return SignInPlan(
            method: .pastedRedirect,
            reason:
                "No display here and the provider has no device flow: open the URL below in any browser and paste "
                + "the address it ends on.")
    }
}
