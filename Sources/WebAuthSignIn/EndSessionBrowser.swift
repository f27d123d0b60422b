// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuth
import WebAuthOAuth

/// The browser an end-session request is shown in: the session's own browser, given no address
/// that carries the ID token unless it receives addresses on no command line.
///
/// A browser with `BrowserCapabilities.callbackInterception` is one the session controls
/// (Chromium over its DevTools pipe, Firefox over WebDriver BiDi, a registered authentication
/// browser over its private socket): it opens the end-session URL as the session built it. Any
/// other — `xdg-open`, `$BROWSER`, a browser program, the terminal — puts what it opens on a
/// command line or a screen, so it gets what `EndSessionRequest.HintDelivery` says: a one-use
/// `LoopbackFormPage` that posts the request, or the URL without the hint.
struct EndSessionBrowser: Browser {
    /// The browser that presents.
    let browser: any Browser
    /// The request being shown.
    let request: EndSessionRequest
    /// How the hint reaches the provider through a browser the session does not control.
    let hintDelivery: EndSessionRequest.HintDelivery
    /// Where the form page logs (never a field's value).
    let logger: Logger

    var name: String { browser.name }
    var capabilities: BrowserCapabilities { browser.capabilities }

    /// Whether `browser` receives the address it opens on no command line.
    static func receivesAddressPrivately(_ browser: any Browser) -> Bool {
        browser.capabilities.contains(.callbackInterception)
    }

    func present(_ presented: BrowserRequest) async throws(WebAuthenticationSessionError) -> any BrowserPresentation {
        guard !Self.receivesAddressPrivately(browser) else { return try await browser.present(presented) }
        let postLogoutRedirectURI = presented.redirectURI ?? presented.callback.redirectURI
        var handed = presented
        switch hintDelivery {
        case .omitted:
            handed.url = request.urlWithoutHint(postLogoutRedirectURI: postLogoutRedirectURI)
            return try await browser.present(handed)
        case .formPost:
            let page = try await LoopbackFormPage.start(
                request.formPost(postLogoutRedirectURI: postLogoutRedirectURI), logger: logger)
            handed.url = page.url
            do throws(WebAuthenticationSessionError) {
                return FormPagePresentation(presentation: try await browser.present(handed), page: page)
            } catch {
                await page.close()
                throw error
            }
        }
    }
}

/// A presentation of a one-use form page: the browser's, and the page, closed when it ends.
private struct FormPagePresentation: BrowserPresentation {
    let presentation: any BrowserPresentation
    let page: LoopbackFormPage

    var events: AsyncStream<BrowserEvent> { presentation.events }

    func dismiss() async {
        await page.close()
        await presentation.dismiss()
    }
}
