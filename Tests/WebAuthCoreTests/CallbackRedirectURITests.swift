// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import WebAuthCore

@Suite("Callback(redirectURI:)")
struct CallbackRedirectURITests {
    private func callback(_ string: String) throws -> Callback { try Callback(redirectURI: URL(string: string)!) }

    @Test func loopbackURIsBecomeLoopbackCallbacksOnTheirPortAndPath() throws {
        #expect(try callback("http://127.0.0.1/callback") == .loopback(path: "/callback"))
        #expect(try callback("http://127.0.0.1:8765/cb") == .loopback(path: "/cb", port: 8765))
        #expect(try callback("http://[::1]/cb") == .loopback(path: "/cb", host: .ipv6))
        #expect(try callback("http://localhost") == .loopback(path: "/"))
    }

    @Test func httpsAndCustomSchemesKeepTheURIAsTheirRedirectURI() throws {
        let web = try callback("https://App.example.com/oauth")
        #expect(web == .https(host: "app.example.com", path: "/oauth"))
        #expect(web.redirectURI.absoluteString == "https://App.example.com/oauth")
        let app = try callback("Com.Example.App:/oauth")
        #expect(app == .customScheme("com.example.app"))
        #expect(app.redirectURI.absoluteString == "Com.Example.App:/oauth")
        #expect(try callback("fairese-nae://anilist-auth").redirectURI.absoluteString == "fairese-nae://anilist-auth")
        // Made without a URI, the redirect URI is the callback's base.
        #expect(Callback.customScheme("com.example.app").redirectURI.absoluteString == "com.example.app:")
        #expect(Callback.loopback().boundToPort(4000).redirectURI.absoluteString == "http://127.0.0.1:4000/callback")
    }

    @Test(arguments: [
        "http://example.com/cb", "http://127.attacker.example/cb", "http://127.0.0.1.nip.example/cb",
        "http://127.0.0.1/cb?x=1", "com.example.app:/cb#fragment", "https:/no-host", "1scheme:/cb", "file:///cb",
        "javascript:alert",
    ])
    func refusesWhatCannotBeARedirectURI(_ uri: String) {
        guard let url = URL(string: uri) else { return }
        #expect(throws: WebAuthenticationSessionError.self, "\(uri)") { try Callback(redirectURI: url) }
        do {
            _ = try Callback(redirectURI: url)
        } catch {
            #expect(error.code == .invalidCallback)
        }
    }
}
