// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore

@Suite("ApplicationSchemeReceiver: the URL an app is opened with, handed to its session")
struct ApplicationSchemeReceiverTests {
    let authorize = URL(string: "https://auth.example.com/authorize")!

    private func session(_ receiver: ApplicationSchemeReceiver, browser: StandInBrowser, scheme: String)
        -> WebAuthSession
    {
        let session = WebAuthSession(
            url: authorize, callback: .customScheme(scheme),
            environment: SessionEnvironment(browser: browser, receivers: [receiver]))
        session.acceptsCallback = { url in url.query?.contains("state=expected") == true }
        return session
    }

    @Test func takesOnlyTheSchemesItWasGiven() throws {
        let receiver = ApplicationSchemeReceiver(schemes: ["Com.Example.App", "com.example.app", "other"])
        #expect(receiver.schemes == ["com.example.app", "other"])
        #expect(receiver.canReceive(.customScheme("com.example.app")))
        #expect(!receiver.canReceive(.customScheme("com.example.elsewhere")))
        #expect(!receiver.canReceive(.loopback()))
        #expect(try receiver.registeredCallback() == .customScheme("com.example.app"))
        #expect(try ApplicationSchemeReceiver(schemes: []).registeredCallback() == nil)
    }

    @Test func opensTheWaitingSessionWithAnAcceptedURLOnly() async throws {
        let receiver = ApplicationSchemeReceiver(schemes: ["com.example.app"])
        let browser = StandInBrowser()
        let session = session(receiver, browser: browser, scheme: "com.example.app")
        #expect(!receiver.open(URL(string: "com.example.app:/done?state=expected")!))  // nobody waits yet
        let result = Task { try await session.authenticate() }
        let presentation = await browser.nextPresentation()

        #expect(receiver.unavailability(for: .customScheme("com.example.app"))?.code == .callbackListenerFailed)
        #expect(!receiver.open(URL(string: "com.example.app:/done?state=forged")!))  // refused, still waiting
        #expect(!receiver.open(URL(string: "other:/done?state=expected")!))
        let callbackURL = URL(string: "com.example.app:/done?code=1&state=expected")!
        #expect(receiver.open(callbackURL))
        #expect(!receiver.open(callbackURL))  // the wait is over

        let received = try await result.value
        #expect(received.url == callbackURL)
        #expect(presentation.dismissCount == 1)
        #expect(receiver.unavailability(for: .customScheme("com.example.app")) == nil)
    }

    @Test func aSecondSessionForTheSchemeIsRefusedUntilTheFirstEnds() async throws {
        let receiver = ApplicationSchemeReceiver(schemes: ["com.example.app"])
        let browser = StandInBrowser()
        let first = session(receiver, browser: browser, scheme: "com.example.app")
        let firstResult = Task { try await first.authenticate() }
        _ = await browser.nextPresentation()

        let second = session(receiver, browser: StandInBrowser(), scheme: "com.example.app")
        await #expect(throws: WebAuthenticationSessionError.self) { try await second.authenticate() }

        first.cancel()
        await #expect(throws: WebAuthenticationSessionError.self) { try await firstResult.value }
        // Cancelled, the first session let go of the scheme: a new one waits and is opened.
        let third = session(receiver, browser: browser, scheme: "com.example.app")
        let thirdResult = Task { try await third.authenticate() }
        _ = await browser.nextPresentation()
        #expect(receiver.open(URL(string: "com.example.app:/done?state=expected")!))
        #expect(try await thirdResult.value.url.absoluteString == "com.example.app:/done?state=expected")
    }
}
