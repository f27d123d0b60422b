// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import WebAuthCore

@Suite("Callback matching rules")
struct CallbackMatchingTests {
    private func url(_ string: String) -> URL { URL(string: string)! }

    @Test func customSchemeIsCaseInsensitive() {
        let callback = Callback.customScheme("com.Example.App")
        #expect(callback.matchesURL(url("com.example.app://auth?code=1")))
        #expect(callback.matchesURL(url("COM.EXAMPLE.APP:/oauth")))
        #expect(!callback.matchesURL(url("com.example.apps://auth")))
        #expect(!callback.matchesURL(url("https://com.example.app/auth")))
    }

    @Test func httpsNeedsExactHostAndPathOnASegmentBoundary() {
        let callback = Callback.https(host: "Example.com", path: "/oauth")
        #expect(callback.matchesURL(url("https://example.com/oauth?code=1")))
        #expect(callback.matchesURL(url("https://EXAMPLE.com/oauth/done")))
        #expect(callback.matchesURL(url("https://example.com:443/oauth")))
        #expect(!callback.matchesURL(url("https://example.com/oauthx")))
        #expect(!callback.matchesURL(url("https://example.com/other")))
        #expect(!callback.matchesURL(url("https://evil.example.com/oauth")))
        #expect(!callback.matchesURL(url("https://example.com.evil/oauth")))
        #expect(!callback.matchesURL(url("https://example.com:8443/oauth")))
        #expect(!callback.matchesURL(url("https://user@example.com/oauth")))
        #expect(!callback.matchesURL(url("http://example.com/oauth")))
    }

    @Test func httpsWithEmptyPathMatchesTheWholeHost() {
        let callback = Callback.https(host: "example.com", path: "")
        #expect(callback.matchesURL(url("https://example.com/anything")))
        #expect(!callback.matchesURL(url("https://other.com/anything")))
    }

    @Test func loopbackNeedsExactPathAndBoundPort() {
        let unbound = Callback.loopback(path: "/callback")
        #expect(unbound.matchesURL(url("http://127.0.0.1:49152/callback?code=1")))
        let bound = unbound.boundToPort(49152)
        #expect(bound.matchesURL(url("http://127.0.0.1:49152/callback?code=1")))
        #expect(!bound.matchesURL(url("http://127.0.0.1:49153/callback")))
        #expect(!bound.matchesURL(url("http://127.0.0.1:49152/callback/")))
        #expect(!bound.matchesURL(url("http://127.0.0.1:49152/callbackx")))
        #expect(!bound.matchesURL(url("http://localhost:49152/callback")))
        #expect(!bound.matchesURL(url("https://127.0.0.1:49152/callback")))
        #expect(!bound.matchesURL(url("http://[::1]:49152/callback")))
        let ipv6 = Callback.loopback(path: "/cb", port: 8080, host: .ipv6)
        #expect(ipv6.matchesURL(url("http://[::1]:8080/cb")))
        #expect(!ipv6.matchesURL(url("http://127.0.0.1:8080/cb")))
    }

    @Test func descriptionsReadAsURLs() {
        #expect(Callback.customScheme("myapp").description == "myapp:")
        #expect(Callback.https(host: "example.com", path: "/cb").description == "https://example.com/cb")
        #expect(Callback.loopback(port: 5000).description == "http://127.0.0.1:5000/callback")
        #expect(Callback.loopback(host: .ipv6).description == "http://[::1]:0/callback")
    }

    @Test(arguments: ["com.example.app", "myapp", "a+b-c.d", "X1"])
    func validSchemes(_ name: String) throws {
        #expect(try Callback.validateCustomScheme(name) == name.lowercased())
    }

    @Test(arguments: ["", "1app", "my app", "my_app", "app:", "https", "JavaScript", "file", "data", "é", "-x"])
    func invalidSchemes(_ name: String) {
        #expect(throws: WebAuthenticationSessionError.self) { try Callback.validateCustomScheme(name) }
        let code = (try? Callback.validateCustomScheme(name)).map { _ in 0 } ?? 107
        #expect(code == WebAuthenticationSessionError.Code.invalidCallback.rawValue)
    }

    @Test func reverseDNSAdvice() {
        #expect(Callback.isReverseDNSScheme("com.example.app"))
        #expect(!Callback.isReverseDNSScheme("myapp"))
        #expect(!Callback.isReverseDNSScheme("com..app"))
    }
}

@Suite("Which URLs a browser may open")
struct AuthorizationURLPolicyTests {
    @Test(arguments: [
        "https://auth.example.com/authorize?x=1", "http://127.0.0.1:8080/authorize", "http://localhost/a",
        "http://[::1]:9000/a", "http://127.1.2.3/a",
    ])
    func allowed(_ string: String) throws {
        #expect(try AuthorizationURLPolicy.validate(URL(string: string)!) == string)
    }

    @Test(arguments: [
        "http://example.com/authorize", "file:///etc/passwd", "javascript:alert(1)", "myapp://x", "ftp://example.com/",
        "http://127.0.0.1.evil.com/", "http://1270.0.0.1/", "data:text/html,hi",
    ])
    func refused(_ string: String) {
        #expect(throws: WebAuthenticationSessionError.self) {
            try AuthorizationURLPolicy.validate(URL(string: string)!)
        }
    }

    @Test func refusalsHaveTheirCode() {
        do {
            _ = try AuthorizationURLPolicy.validate(URL(string: "http://example.com/")!)
            Issue.record("accepted plain http to a remote host")
        } catch {
            #expect(error.code == .invalidAuthorizationURL)
        }
    }
}

@Suite("URLs in logs")
struct RedactionTests {
    @Test func queryFragmentAndUserInformationAreHidden() {
        let url = URL(string: "https://user:pw@example.com/cb?code=SECRET&state=S#access_token=T")!
        let redacted = url.redactedForLogs
        #expect(redacted == "https://example.com/cb?…#…")
        for secret in ["SECRET", "user", "pw", "access_token", "state"] { #expect(!redacted.contains(secret)) }
    }
}
