// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore
import WebAuthTestSupport

@testable import WebAuthLoopback

/// A socket table that gives one answer.
private struct FixedSocketTable: PeerSocketOwnerLookup {
    let answer: PeerSocketOwner
    func owner(ofPeerOf connection: ConnectionEnds) -> PeerSocketOwner { answer }
}

@Suite("The one-use form page")
struct LoopbackFormPageTests {
    /// A secret that must reach only the page, and characters that must be escaped there.
    static let secret = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LWNsYWltcw.c2lnbmF0dXJl"
    static let form = LoopbackFormPost(
        action: URL(string: "https://provider.example/end_session?tenant=a&b=c")!,
        fields: [("id_token_hint", secret), ("state", "\"><script>alert(1)</script>&'")],
        title: "Signing out", message: "Sending the request…", buttonLabel: "Continue")

    private static func get(_ page: LoopbackFormPage, path: String? = nil, host: String? = nil, method: String = "GET")
        async throws -> RawReply
    {
        let port = try #require(page.url.port)
        return try await TestClient.exchange(
            TestClient.get(path ?? page.url.path, host: host ?? "127.0.0.1:\(port)", method: method), port: port)
    }

    @Test func thePageIsServedOnceWithHeadersThatKeepItPrivateAndPostsTheFormEscaped() async throws {
        let page = try await LoopbackFormPage.start(Self.form)
        #expect(page.url.scheme == "http" && page.url.host == "127.0.0.1")
        #expect(page.url.path.count == 44, "a slash and 256 random bits")
        #expect(!page.url.absoluteString.contains(Self.secret))

        let reply = try await Self.get(page)
        #expect(reply.status == 200)
        #expect(reply.headers["cache-control"] == "no-store")
        #expect(reply.headers["referrer-policy"] == "no-referrer")
        let policy = try #require(reply.headers["content-security-policy"])
        #expect(policy.hasPrefix("default-src 'none'; "))
        let nonce = try #require(
            policy.components(separatedBy: "script-src 'nonce-").dropFirst().first?.prefix { $0 != "'" })
        #expect(nonce.count >= 22)
        #expect(reply.body.contains("<script nonce=\"\(nonce)\">document.getElementById(\"post\").submit();</script>"))
        #expect(reply.body.components(separatedBy: "<script").count == 2, "the one script is the auto-submit")
        #expect(
            reply.body.contains(
                "<form id=\"post\" method=\"post\" action=\"https://provider.example/end_session?tenant=a&amp;b=c\">"))
        #expect(reply.body.contains("<input type=\"hidden\" name=\"id_token_hint\" value=\"\(Self.secret)\">"))
        #expect(
            reply.body.contains(
                "name=\"state\" value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#39;\""))
        #expect(reply.body.contains("<button type=\"submit\">Continue</button>"))
        #expect(await page.isServed)

        let again = try await Self.get(page)
        #expect(again.status == 404)
        #expect(!again.text.contains(Self.secret))
        await page.close()
    }

    @Test func requestsThatAreNotThePageLeaveItForThePerson() async throws {
        let page = try await LoopbackFormPage.start(Self.form)
        #expect(try await Self.get(page, path: "/favicon.ico").status == 404)
        #expect(try await Self.get(page, path: page.url.path + "x").status == 404)
        #expect(try await Self.get(page, host: "evil.example").status == 400)
        #expect(try await Self.get(page, method: "HEAD").status == 404)
        #expect(try await Self.get(page, method: "POST").status == 405)
        #expect(!(await page.isServed))
        #expect(try await Self.get(page).status == 200)
        await page.close()
    }

    @Test(arguments: [
        (PeerSocketOwner.user(UInt32(geteuid())), true), (.user(0), true), (.notLocal, true),
        (.user(UInt32(geteuid()) + 4242), false), (.closedByItsProgram, false), (.unknown, false),
    ])
    func thePageGoesOnlyWhereTheKernelSaysItIsOurs(owner: PeerSocketOwner, served: Bool) async throws {
        let page = try await LoopbackFormPage.start(Self.form, peerSockets: FixedSocketTable(answer: owner))
        let reply = try await Self.get(page)
        #expect(reply.status == (served ? 200 : 403))
        #expect(reply.text.contains(Self.secret) == served)
        #expect(await page.isServed == served)
        await page.close()
    }

    @Test(.timeLimit(.minutes(1)), TestFixture.anotherUser.required)
    func anotherUserIsRefusedAndThePageStaysForThePerson() async throws {
        let page = try await LoopbackFormPage.start(Self.form)
        let port = try #require(page.url.port)
        let request = TestClient.get(page.url.path, host: "127.0.0.1:\(port)")
        let theirs = try await AnotherUser.run(port: port, .send(request))
        #expect(theirs.output.hasPrefix("HTTP/1.1 403 "), "\(theirs.output) \(theirs.errors)")
        #expect(!theirs.output.contains(Self.secret))
        #expect(!(await page.isServed))

        let ours = try await Self.get(page)
        #expect(ours.status == 200)
        #expect(ours.text.contains(Self.secret))
        await page.close()
    }

    @Test func aClosedPageIsNoLongerServed() async throws {
        let page = try await LoopbackFormPage.start(Self.form)
        let port = try #require(page.url.port)
        await page.close()
        // The port refuses connections.
        await #expect(throws: (any Error).self) {
            _ = try await TestClient.exchange(
                TestClient.get(page.url.path, host: "127.0.0.1:\(port)"), port: port, deadline: .seconds(10))
        }
    }

    @Test func aSecretGoesOnlyToOurUserRootOrAConnectionFromOutsideTheKernel() {
        #expect(PeerSocketOwner.user(1000).mayReceivePage(ourUID: 1000))
        #expect(PeerSocketOwner.user(0).mayReceivePage(ourUID: 1000))
        #expect(PeerSocketOwner.notLocal.mayReceivePage(ourUID: 1000))
        #expect(!PeerSocketOwner.user(1001).mayReceivePage(ourUID: 1000))
        #expect(!PeerSocketOwner.unknown.mayReceivePage(ourUID: 1000))
        #expect(!PeerSocketOwner.closedByItsProgram.mayReceivePage(ourUID: 1000))
    }
}
