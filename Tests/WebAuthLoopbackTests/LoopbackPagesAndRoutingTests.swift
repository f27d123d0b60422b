// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuthCore

@testable import WebAuthLoopback

@Suite("Loopback pages and routing")
struct LoopbackPagesAndRoutingTests {
    @Test func htmlEscaping() {
        #expect(
            htmlEscaped(#"<a href="x">'Tom' & Jerry</a>"#)
                == "&lt;a href=&quot;x&quot;&gt;&#39;Tom&#39; &amp; Jerry&lt;/a&gt;")
        #expect(htmlEscaped("plain — text") == "plain — text")
        #expect(htmlEscaped("") == "")
        // `<` followed by a combining mark is one Character, but must still be escaped.
        #expect(htmlEscaped("<\u{338}script>") == "&lt;\u{338}script&gt;")
        #expect(htmlEscaped("&amp;") == "&amp;amp;")
    }

    @Test func responseHeaders() throws {
        let bytes = LoopbackResponse.plain(.methodNotAllowed).serialized(includeBody: true)
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        #expect(parts.count == 2)
        let lines = parts[0].components(separatedBy: "\r\n")
        #expect(lines.first == "HTTP/1.1 405 Method Not Allowed")
        for expected in [
            "Content-Type: text/html; charset=utf-8", "Cache-Control: no-store", "Pragma: no-cache",
            "Referrer-Policy: no-referrer", "X-Content-Type-Options: nosniff",
            "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'", "Connection: close",
            "Allow: GET, HEAD", "Content-Length: \(parts[1].utf8.count)",
        ] {
            #expect(lines.contains(expected), "missing \(expected)")
        }
        let head = LoopbackResponse.plain(.notFound).serialized(includeBody: false)
        #expect(String(decoding: head, as: UTF8.self).hasSuffix("\r\n\r\n"))
    }

    @Test func pagesHaveNoScriptsOrExternalResources() {
        let pages = [
            LoopbackResponse.success(.signedIn), .rejected(.unexpectedResponse), .plain(.notFound),
            .authorizationError(.signInFailed, error: "x", description: "y"),
        ]
        for page in pages {
            let html = page.html.lowercased()
            #expect(!html.contains("<script"))
            #expect(!html.contains("src="))
            #expect(!html.contains("href="))
            #expect(!html.contains("http"))
        }
        #expect(LoopbackResponse.success(.signedIn).html.contains("Signed in — you can close this window"))
        #expect(LoopbackResponse.rejected(.unexpectedResponse).status == .badRequest)
        let custom = LoopbackResponse.success(.init(title: "<T>", message: "M & M"))
        #expect(custom.html.contains("&lt;T&gt;") && custom.html.contains("M &amp; M"))
    }

    @Test func authorizationErrorExtraction() throws {
        let url = try #require(
            URL(string: "http://127.0.0.1:5/callback?state=s&error=access_denied&error_description=Nope+%3Cb%3E"))
        let failure = try #require(LoopbackRequestRouter.authorizationError(in: CallbackParameters(url)))
        #expect(failure.error == "access_denied")
        #expect(failure.description == "Nope <b>")
        let success = try #require(URL(string: "http://127.0.0.1:5/callback?code=1"))
        #expect(LoopbackRequestRouter.authorizationError(in: CallbackParameters(success)) == nil)
    }

    private func head(
        _ target: String, host: String?, method: String = "GET", extra: [HTTPField] = []
    ) -> HTTPRequestHead {
        HTTPRequestHead(
            method: method, target: target, minorVersion: 1,
            headers: HTTPFields(
                (host.map { [HTTPField(name: LoopbackRequestRouter.hostField, value: $0)] } ?? []) + extra),
            declaresBody: extra.contains { $0.name == .contentLength })
    }

    @Test func routing() throws {
        let router = try #require(LoopbackRequestRouter(callback: .loopback(path: "/callback", port: 4321)))
        #expect(router.callback.redirectURI.absoluteString == "http://127.0.0.1:4321/callback")
        guard case .callback(let url) = router.route(head("/callback?code=1&state=2", host: "127.0.0.1:4321")) else {
            Issue.record("not routed as the callback")
            return
        }
        #expect(url.absoluteString == "http://127.0.0.1:4321/callback?code=1&state=2")
        if case .callback = router.route(head("/callback", host: "LOCALHOST:4321")) {
        } else {
            Issue.record("localhost:PORT should be accepted")
        }
        #expect(router.route(head("/callback?code=1", host: "127.0.0.1:4321", method: "HEAD")) == .probe)

        func status(_ route: LoopbackRequestRouter.Route) -> Int? {
            if case .reject(let status, _) = route { return status.rawValue }
            return nil
        }
        #expect(status(router.route(head("/callback", host: "127.0.0.1:4321", method: "POST"))) == 405)
        #expect(status(router.route(head("/callback", host: "127.0.0.1:4321", method: "get"))) == 405)
        #expect(status(router.route(head("/callback", host: "evil.example"))) == 400)
        #expect(status(router.route(head("/callback", host: "127.0.0.1:4322"))) == 400)
        #expect(status(router.route(head("/callback", host: "127.0.0.1"))) == 400)
        #expect(status(router.route(head("/callback", host: "[::1]:4321"))) == 400)
        #expect(status(router.route(head("/callback", host: nil))) == 400)
        #expect(
            status(
                router.route(
                    head(
                        "/callback", host: "127.0.0.1:4321",
                        extra: [HTTPField(name: HTTPField.Name("host")!, value: "127.0.0.1:4321")])))
                == 400)
        #expect(
            status(
                router.route(
                    head("/callback", host: "127.0.0.1:4321", extra: [HTTPField(name: .contentLength, value: "3")])))
                == 400)
        for path in ["/", "/favicon.ico", "/callback/", "/callbackx", "/Callback", "/%63allback"] {
            #expect(status(router.route(head(path, host: "127.0.0.1:4321"))) == 404, "\(path)")
        }
    }

    @Test func routingIPv6() throws {
        let router = try #require(LoopbackRequestRouter(callback: .loopback(path: "/cb", port: 80, host: .ipv6)))
        #expect(router.callback.redirectURI.absoluteString == "http://[::1]:80/cb")
        #expect(router.isAllowedHost("[::1]:80"))
        #expect(router.isAllowedHost("[::1]"))  // the default port may be left out
        #expect(router.isAllowedHost("localhost:80"))
        #expect(!router.isAllowedHost("127.0.0.1:80"))
        #expect(!router.isAllowedHost("::1:80"))
    }

    @Test func theHostFieldMustNameThisListenerExactly() throws {
        let router = try #require(LoopbackRequestRouter(callback: .loopback(path: "/cb", port: 4321)))
        for accepted in ["127.0.0.1:4321", "localhost:4321", "LocalHost:4321", "LOCALHOST:4321"] {
            #expect(router.isAllowedHost(accepted), "\(accepted)")
        }
        for refused in [
            "", "localhost", "127.0.0.1", "127.0.0.2:4321", "127.0.0.01:4321", "localhost:04321", "localhost.:4321",
            "localhost:4321 ", "localhost:43210", "localhost:432", "[::1]:4321", "[::ffff:127.0.0.1]:4321",
            "localhost:4321:4321", "l\u{00F6}calhost:4321",
        ] {
            #expect(!router.isAllowedHost(refused), "\(refused)")
        }
    }
}
