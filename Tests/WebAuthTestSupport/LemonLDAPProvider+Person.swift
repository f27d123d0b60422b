// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import WebAuth
import WebAuthCore
import WebAuthOAuth

extension LemonLDAPProvider {
    /// What the person met at the portal while ``act(at:on:username:password:within:)`` ran.
    public enum PortalPage: String, Sendable {
        /// The login form (the Demo backend's user and password).
        case login
        /// The OpenID Connect consent page.
        case consent
        /// The RP-initiated logout's confirmation page.
        case logout
    }

    /// Runs `body` with the page of one headless, offline Chromium that stays open for the whole
    /// of `body`, so that several sign-ins and a sign-out share the portal's session cookie, as
    /// a person's browser would. The browser starts at the portal's own address; one test at a
    /// time has a browser (``BrowserTurns``).
    package func withBrowser<Result>(
        within limit: Duration = .seconds(300), _ body: (ChromiumPage) async throws -> Result
    ) async throws -> Result {
        try await BrowserTurns.withTurn {
            let driver = try ChromiumPageDriver()
            defer { driver.tearDown() }
            let session = driver.browsingSession(to: issuer, loopbackReceiver: LoopbackReceiver())
            session.timeout = limit
            let browsing = Task { try? await session.authenticate().url }
            do {
                let result = try await body(try await driver.page())
                session.cancel()
                _ = await browsing.value
                return result
            } catch {
                session.cancel()
                _ = await browsing.value
                throw error
            }
        }
    }

    /// Plays the person in `page` from `url` (an authorization request, or a one-use page that
    /// posts an end-session request to the portal) until the portal sends the browser away:
    /// logs in when the login form shows, consents on the consent page, confirms on the logout
    /// page. Returns the portal's pages in the order they were met.
    ///
    /// - Throws: ``IndependentProviderError`` when the portal shows an error, the login form
    ///   comes back (a refused password), or the browser has not left the portal within
    ///   `limit` — with the page's text and the end of the portal's log.
    package func act(
        at url: URL, on page: ChromiumPage, username: String? = nil, password: String? = nil,
        within limit: Duration = .seconds(60)
    ) async throws -> [PortalPage] {
        try await Self.mark(page, then: "location.href = \(ChromiumPage.literal(url.absoluteString))")
        let deadline = ContinuousClock.now + limit
        var met: [PortalPage] = []
        // A request to the portal reaches it even when the portal answers with a redirect away
        // at once; a one-use page elsewhere reaches it once the portal shows a page, or once the
        // browser is somewhere else again.
        let start = Self.origin(of: url)
        var reachedPortal = start == "http://127.0.0.1:\(port)"
        var last = "nothing"
        while ContinuousClock.now < deadline {
            let state = (try? await page.evaluate(probe)) ?? "loading"
            last = state
            if state.hasPrefix("away ") {
                if reachedPortal || URL(string: String(state.dropFirst(5))).map(Self.origin(of:)) != start {
                    return met
                }
            } else if state.hasPrefix("error ") {
                throw IndependentProviderError(
                    "LemonLDAP::NG showed an error: \(state.dropFirst(6).prefix(500)) (after \(met))\n\(recentLog())")
            } else if let shown = PortalPage(rawValue: state) {
                reachedPortal = true
                if shown == .login, met.contains(.login) {
                    throw IndependentProviderError("LemonLDAP::NG asked for the password again\n\(recentLog())")
                }
                met.append(shown)
                switch shown {
                case .login:
                    try await page.fill("#userfield", with: username ?? self.username)
                    try await page.fill("#passwordfield", with: password ?? self.password)
                    try await Self.mark(page, then: "document.querySelector('#lform button[type=submit]').click()")
                case .consent, .logout:
                    try await Self.mark(page, then: "document.querySelector('form.confirm button.positive').click()")
                }
            } else if state.hasPrefix("portal ") || state == "menu" {
                reachedPortal = true
            }
            // Real time is the point: the pace of a person at a real browser's pages.
            try await Task.sleep(for: .milliseconds(50))
        }
        throw IndependentProviderError(
            "the browser did not leave LemonLDAP::NG within \(limit) (met \(met); last seen: \(last))\n\(recentLog())")
    }

    /// Signs the person in on the portal's own page (its address, not an authorization
    /// request) and waits for the portal's menu, as someone who starts the day at the portal
    /// does. The sign-ins that follow in the same browser then need no password.
    ///
    /// A sign-in that starts at an authorization request leaves that request's address in the
    /// portal's `lemonldappdata` cookie, and LemonLDAP::NG 2.16 then takes it as the place to
    /// go after an RP-initiated logout in that browser, instead of the
    /// `post_logout_redirect_uri`: the logout tests sign in here first.
    package func logInAtPortal(on page: ChromiumPage, within limit: Duration = .seconds(60)) async throws {
        try await Self.mark(page, then: "location.href = \(ChromiumPage.literal(issuer.absoluteString))")
        let deadline = ContinuousClock.now + limit
        var submitted = false
        var last = "nothing"
        while ContinuousClock.now < deadline {
            let state = (try? await page.evaluate(probe)) ?? "loading"
            last = state
            if state == "menu", submitted { return }
            if state.hasPrefix("error ") {
                throw IndependentProviderError(
                    "LemonLDAP::NG showed an error: \(state.dropFirst(6).prefix(500))\n\(recentLog())")
            }
            if state == PortalPage.login.rawValue {
                if submitted { throw IndependentProviderError("LemonLDAP::NG refused the password\n\(recentLog())") }
                submitted = true
                try await page.fill("#userfield", with: username)
                try await page.fill("#passwordfield", with: password)
                try await Self.mark(page, then: "document.querySelector('#lform button[type=submit]').click()")
            }
            // Real time is the point: the pace of a person at a real browser's pages.
            try await Task.sleep(for: .milliseconds(50))
        }
        throw IndependentProviderError(
            "the portal did not show its menu within \(limit) (last seen: \(last))\n\(recentLog())")
    }

    /// `scheme://host:port` of `url`.
    private static func origin(of url: URL) -> String {
        "\(url.scheme ?? "")://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
    }

    /// Marks the current document as acted upon (the probe then waits for the next one), then
    /// runs `action` just after the evaluation is answered.
    private static func mark(_ page: ChromiumPage, then action: String) async throws {
        let answer = try await page.evaluate(
            "(() => { window.__webauthActed = true; setTimeout(() => { \(action); }, 0); return 'ok'; })()")
        guard answer == "ok" else { throw IndependentProviderError("the page did not take the action \(action)") }
    }

    /// The probe: where the browser is, for ``act(at:on:username:password:within:)``.
    private var probe: String {
        let origin = ChromiumPage.literal("http://127.0.0.1:\(port)")
        return """
            (() => {
                if (window.__webauthActed) return 'acted';
                if (document.readyState !== 'complete') return 'loading';
                if (location.origin !== \(origin)) return 'away ' + location.href;
                const confirm = document.querySelector('form.confirm button.positive');
                if (confirm && document.querySelector('.oidc_consent_message')) return 'consent';
                if (confirm && document.querySelector('.oidc_logout_message')) return 'logout';
                if (document.querySelector('#userfield') && document.querySelector('#passwordfield')) return 'login';
                if (document.querySelector('#menu')) return 'menu';
                const error = document.querySelector('.message-negative, .message-warning');
                if (error) return 'error ' + error.innerText;
                return 'portal ' + location.pathname;
            })()
            """
    }
}
