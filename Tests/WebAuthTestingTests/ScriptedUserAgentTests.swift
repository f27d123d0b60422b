// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The scripted user agent's reading of pages and its decisions, without a server, and its
/// refusals with one.
@Suite("Scripted user agent")
struct ScriptedUserAgentTests {
    @Test func theFormParserIsNotTiedToLayout() {
        let html = """
            <!DOCTYPE html><html><head><title> Sign
              in </title><style>form{}</style><script>var x = "<form action='/evil'>";</script></head>
            <body><!-- <form action="/commented"> -->
            <p ROLE=alert class="error">Wrong <em>username</em> &amp; password.</p>
            <FORM Method=post ACTION='/login?x=1&amp;y=2'>
              <INPUT type=hidden name=transaction value=abc/>
              <input name="csrf_token" type="hidden" value='q&quot;z'>
              <input id=u name=username>
              <input type="password" name="pw">
              <input type="checkbox" name="remember">
              <input type="checkbox" name="terms" checked>
              <button>Sign in</button>
            </FORM>
            <form action="/consent" method="post"><button type="submit" name="decision" value="approve">
              Allow</button><button type=button>Help</button><input type=submit name=decision value=deny></form>
            </body></html>
            """
        let page = HTMLPage(html: html)
        #expect(page.title == "Sign in")
        #expect(page.alerts == ["Wrong username & password."])
        #expect(page.forms.count == 2)
        let login = page.forms[0]
        #expect(login.action == "/login?x=1&y=2")
        #expect(login.method == "POST")
        #expect(login.fields.map(\.name) == ["transaction", "csrf_token", "username", "pw", "terms"])
        #expect(login.field(named: "transaction")?.value == "abc/")
        #expect(login.field(named: "csrf_token")?.value == "q\"z")
        #expect(login.hasPassword)
        #expect(login.buttons.map(\.label) == ["Sign in"])
        let consent = page.forms[1]
        #expect(consent.buttons.map(\.value) == ["approve", "deny"])
        #expect(consent.buttons.first?.label == "Allow")
    }

    @Test func theNavigationFillsLoginThenConsentThenFollowsToTheCallback() throws {
        let base = URL(string: "http://127.0.0.1:8000/authorize?x=1")!
        var navigation = ScriptedNavigation(
            goal: .authorization(.loopback(path: "/callback", port: 9000)), username: "ann", password: "pw",
            approves: true, maximumSteps: 10)
        #expect(navigation.start(at: base) == .send(.init(method: "GET", url: base, form: nil)))

        let login = navigation.next(
            after: .init(
                url: base, status: 200, location: nil,
                body: """
                    <form method="post" action="/login"><input type="hidden" name="t" value="1">
                    <input name="username"><input name="password" type="password"><button>Go</button></form>
                    """))
        let loginURL = URL(string: "http://127.0.0.1:8000/login")!
        #expect(
            login
                == .send(
                    .init(
                        method: "POST", url: loginURL,
                        form: [
                            .init(name: "t", value: "1"), .init(name: "username", value: "ann"),
                            .init(name: "password", value: "pw"),
                        ])))
        #expect(navigation.lastStep == .filledLoginForm(username: "ann"))

        let consent = navigation.next(
            after: .init(
                url: loginURL, status: 200, location: nil,
                body: """
                    <form method="post" action="/consent"><button name="d" value="deny">Deny</button>
                    <button name="d" value="approve">Allow</button></form>
                    """))
        #expect(
            consent
                == .send(
                    .init(
                        method: "POST", url: URL(string: "http://127.0.0.1:8000/consent")!,
                        form: [.init(name: "d", value: "approve")])))

        let callback = URL(string: "http://127.0.0.1:9000/callback?code=c&state=s")!
        let redirect = navigation.next(
            after: .init(url: loginURL, status: 303, location: callback.absoluteString, body: ""))
        #expect(redirect == .send(.init(method: "GET", url: callback, form: nil)))
        #expect(navigation.lastStep == .reachedCallback(path: "/callback"))
        #expect(navigation.next(after: .init(url: callback, status: 200, location: nil, body: "done")) == .finish)
    }

    @Test func theNavigationRefusesToLeaveLoopbackAndStopsOnRefusals() {
        func fresh() -> ScriptedNavigation {
            ScriptedNavigation(
                goal: .authorization(.customScheme("com.example.app")), username: "ann", password: "secret-pw",
                approves: false, maximumSteps: 3)
        }
        let page = URL(string: "http://127.0.0.1:8000/authorize")!
        guard case .fail(let external) = fresh().start(at: URL(string: "https://example.com/authorize?code=1")!) else {
            Issue.record("opened an external page")
            return
        }
        #expect(external.code == .notLoopback)
        #expect(external.message.contains("https://example.com/authorize"))
        #expect(!external.message.contains("code=1"))

        var redirected = fresh()
        guard
            case .fail(let away) = redirected.next(
                after: .init(url: page, status: 302, location: "http://10.0.0.1:80/x", body: ""))
        else {
            Issue.record("followed a redirect off loopback")
            return
        }
        #expect(away.code == .notLoopback)
        #expect(away.message.contains("not plain HTTP on a loopback address"))

        // A custom-scheme callback is handed over, not opened.
        var custom = fresh()
        let callback = URL(string: "com.example.app:/oauth?code=1")!
        #expect(
            custom.next(after: .init(url: page, status: 302, location: callback.absoluteString, body: ""))
                == .deliver(callback))

        var refused = fresh()
        let form = #"<form method="post"><input name="username"><input type="password" name="p"></form>"#
        _ = refused.next(after: .init(url: page, status: 200, location: nil, body: form))
        let again = refused.next(
            after: .init(url: page, status: 200, location: nil, body: #"<p role="alert">No such user.</p>"# + form))
        #expect(
            again == .fail(ScriptedUserAgentError(code: .refused, message: "the login form was refused: No such user."))
        )

        var looping = fresh()
        var last = ScriptedNavigation.Action.finish
        for _ in 0..<4 { last = looping.next(after: .init(url: page, status: 302, location: "/authorize", body: "")) }
        #expect(
            last
                == .fail(
                    ScriptedUserAgentError(code: .unexpectedPage, message: "gave up after 3 pages without finishing")))
    }

    @Test func anErrorPageIsReportedWithItsMessage() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: "not-registered", scopes: ["openid"]))
            let error = await oauthError {
                try await client.signIn(environment: .standard(browser: ScriptedUserAgent())) { session in
                    session.timeout = .seconds(60)
                }
            }
            #expect(error?.code == .session)
            #expect(
                error?.sessionError?.message.contains(
                    "the provider answered HTTP 400: No application is registered with this client ID.") == true)
        }
    }

    @Test func theRedirectFollowingBrowserStillWorksAgainstTheAuthorizationPageServer() async throws {
        try await AuthorizationPageServer.withServer { server in
            let session = WebAuthSession(
                callback: .loopback(), environment: .standard(browser: RedirectFollowingBrowser())
            ) { redirectURI in
                server.authorizationURL(redirectURI: redirectURI, state: "s1")
            }
            let url = try await session.authenticate().url
            #expect(url.query?.contains("state=s1") == true)
        }
    }
}
