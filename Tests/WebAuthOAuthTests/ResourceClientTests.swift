// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing

@testable import WebAuthOAuth

/// ``ResourceClient`` and its redirect rule (``ResourceRedirect``) with a scripted transport:
/// where the token goes, which redirects are followed, and how method and body change.
@Suite("Resource requests and their redirects")
struct ResourceClientTests {
    static let tokens = TokenSet(
        accessToken: "access-1", tokenType: "Bearer", expiresAt: Date(timeIntervalSinceNow: 3600))

    static func client(_ transport: ScriptedTransport) throws -> ResourceClient {
        let oauth = try OAuthClient(
            configuration: ClientConfiguration(
                endpoints: .init(
                    authorization: URL(string: "https://id.example/authorize"),
                    token: URL(string: "https://id.example/token")),
                clientID: "client"),
            transport: transport)
        return ResourceClient(
            tokenProvider: AccessTokenProvider(client: oauth, tokens: tokens), transport: transport, maximumRedirects: 3
        )
    }

    static func redirect(_ status: Int = 302, to location: String) -> HTTPTransportResponse {
        HTTPTransportResponse(status: status, headerFields: [.location: location])
    }

    @Test func theTokenGoesToTheRequestsOriginOnly() async throws {
        let transport = ScriptedTransport { request in
            switch request.url.absoluteString {
            case "https://api.example/start": return Self.redirect(to: "/same")
            case "https://api.example/same": return Self.redirect(to: "https://other.example/there")
            case "https://other.example/there": return Self.redirect(to: "https://api.example/back")
            default: return .json(200, "{}")
            }
        }
        let request = HTTPTransportRequest(
            method: "GET", url: URL(string: "https://api.example/start")!,
            headerFields: [.cookie: "session=1", .accept: "text/plain"])
        let response = try await Self.client(transport).send(request)
        #expect(response.status == 200)
        let sent = transport.requests
        #expect(
            sent.map(\.url.absoluteString) == [
                "https://api.example/start", "https://api.example/same", "https://other.example/there",
                "https://api.example/back",
            ])
        #expect(
            sent.map { $0.headerFields[.authorization] } == [
                "Bearer access-1", "Bearer access-1", nil, "Bearer access-1",
            ])
        #expect(sent[2].headerFields[.cookie] == nil, "credential fields stay behind")
        #expect(sent[2].headerFields[.accept] == "text/plain", "other fields go along")
        #expect(sent.allSatisfy { $0.deliversRedirects }, "the transport hands 3xx back instead of failing")
    }

    @Test(arguments: ["http://api.example/plain", "http://127.0.0.1:8080/plain"])
    func aRedirectLeavingHTTPSIsRefused(location: String) async throws {
        let transport = ScriptedTransport { _ in Self.redirect(to: location) }
        let request = HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example/start")!)
        await #expect(throws: OAuthError.self) { try await Self.client(transport).send(request) }
        do {
            _ = try await Self.client(transport).send(request)
        } catch let error as OAuthError {
            #expect(error.code == .redirectRefused)
            #expect(error.message.contains("leaves https"))
        }
        #expect(transport.requests.allSatisfy { $0.url.scheme == "https" }, "nothing went out over http")
    }

    @Test func httpToAnotherMachineAndEndlessRedirectsAreRefused() async throws {
        let toRemote = ScriptedTransport { _ in Self.redirect(to: "http://example.com/") }
        let local = HTTPTransportRequest(method: "GET", url: URL(string: "http://127.0.0.1:8080/start")!)
        await #expect(throws: OAuthError.self) { try await Self.client(toRemote).send(local) }
        #expect(toRemote.requests.count == 1)

        let loop = ScriptedTransport { _ in Self.redirect(to: "/again") }
        do {
            _ = try await Self.client(loop).send(local)
            Issue.record("an endless redirect was followed to the end")
        } catch let error as OAuthError {
            #expect(error.code == .redirectRefused)
        }
        #expect(loop.requests.count == 4, "the request and three redirects")

        await #expect(throws: OAuthError.self) {
            try await Self.client(loop).send(
                HTTPTransportRequest(method: "GET", url: URL(string: "http://example.com/")!))
        }
        #expect(loop.requests.count == 4, "an insecure URL is refused before sending")
    }

    @Test func methodAndBodyFollowTheRedirectStatus() throws {
        let post = HTTPTransportRequest(
            method: "POST", url: URL(string: "https://api.example/items")!,
            headerFields: [.contentType: "application/json"], body: Data("{}".utf8))
        for status in [301, 302, 303] {
            let next = try #require(try ResourceRedirect.next(after: post, response: Self.redirect(status, to: "/x")))
            #expect(next.method == "GET", "\(status)")
            #expect(next.body == nil)
            #expect(next.headerFields[.contentType] == nil)
        }
        for status in [307, 308] {
            let next = try #require(try ResourceRedirect.next(after: post, response: Self.redirect(status, to: "/x")))
            #expect(next.method == "POST", "\(status)")
            #expect(next.body == Data("{}".utf8))
            #expect(next.url.absoluteString == "https://api.example/x")
        }
        let put = HTTPTransportRequest(
            method: "PUT", url: URL(string: "https://api.example/items")!, body: Data("a".utf8))
        #expect(try ResourceRedirect.next(after: put, response: Self.redirect(302, to: "/x"))?.method == "PUT")
        #expect(try ResourceRedirect.next(after: put, response: Self.redirect(303, to: "/x"))?.method == "GET")
        for status in [300, 304, 200] {
            #expect(try ResourceRedirect.next(after: post, response: Self.redirect(status, to: "/x")) == nil)
        }
        #expect(try ResourceRedirect.next(after: post, response: HTTPTransportResponse(status: 302)) == nil)
    }
}
