// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthPlatform
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth request` run as a process against real loopback servers: a resource server that
/// refuses the first access token it sees and echoes what it receives, and a second one on
/// another port — another origin — that records whether a token reached it. The profile is
/// signed in to ``EmbeddedProvider`` by `webauth login --device`.
@Suite("webauth request, run as a process")
struct RequestCommandProcessTests {
    /// What the servers saw: each request's path and `Authorization` field.
    final class Seen: Sendable {
        let requests = Locked<[(server: String, path: String, authorization: String?)]>([])
        func record(_ server: String, _ request: ServerRequest) {
            requests.withLock { $0.append((server, request.path, request.header("Authorization"))) }
        }
        var all: [(server: String, path: String, authorization: String?)] { requests.withLock { $0 } }
    }

    /// The resource server's answers. `refused` is the token answered with `401`.
    static func resource(
        provider: EmbeddedProvider, refused: String, other: URL, seen: Seen
    ) -> LoopbackHTTPServer.Handler {
        { request in
            seen.record("resource", request)
            if request.path == "/always-401" {
                return ServerResponse(
                    status: 401,
                    headerFields: [.wwwAuthenticate: #"Bearer error="invalid_token""#])
            }
            let token = request.header("Authorization").flatMap { value in
                value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : nil
            }
            guard let token, token != refused, provider.isActive(accessToken: token) else {
                return ServerResponse(
                    status: 401,
                    headerFields: [.wwwAuthenticate: #"Bearer error="invalid_token""#])
            }
            switch request.path {
            case "/same": return .redirect(to: "/echo")
            case "/other": return .redirect(to: other.appendingPathComponent("echo").absoluteString)
            case "/see-other": return .redirect(to: "/echo", status: 303)
            case "/keep": return .redirect(to: "/echo", status: 307)
            case "/insecure": return .redirect(to: "http://example.com/echo")
            case "/loop": return .redirect(to: "/loop")
            case "/missing": return .text("no such thing\n", status: 404)
            case "/broken": return .text("down\n", status: 503)
            default:
                let object: [String: Any] = [
                    "method": request.method, "path": request.path, "body": request.bodyText,
                    "content_type": request.header("Content-Type") ?? "",
                ]
                return .json(try! JSONSerialization.data(withJSONObject: object, options: .sortedKeys))
            }
        }
    }

    @Test func aRefusedTokenIsRefreshedOnceAndTheTokenStaysWithItsOrigin() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let login = try await sandbox.run(provider.loginArguments(["--device", "--store", "file"]))
            try #require(login.status == 0, "login failed: \(login.stderr)")
            let first = try #require(try sandbox.storedEntry())
            let seen = Seen()
            try await LoopbackHTTPServer.withServer(handler: { request in
                seen.record("other", request)
                return .text("elsewhere\n")
            }) { other in
                try await LoopbackHTTPServer.withServer(
                    handler: Self.resource(
                        provider: provider, refused: first.tokens.accessToken, other: other.baseURL, seen: seen)
                ) { server in
                    // 401 to the stored token: one refresh, one retry, which succeeds.
                    let run = try await sandbox.run(["request", server.url("/echo").absoluteString, "-i"])
                    #expect(run.status == 0, "stderr: \(run.stderr)")
                    let echoed = try jsonObject(run.stdout)
                    #expect(echoed["method"] as? String == "GET")
                    #expect(run.stderr.contains("HTTP 200"), "-i shows the status: \(run.stderr)")
                    #expect(run.stderr.lowercased().contains("content-type: application/json"))
                    let second = try #require(try sandbox.storedEntry())
                    #expect(second.tokens.accessToken != first.tokens.accessToken, "refreshed and stored")
                    #expect(provider.refreshRequests.count == 1)
                    #expect(
                        seen.all.map(\.authorization) == [
                            "Bearer \(first.tokens.accessToken)", "Bearer \(second.tokens.accessToken)",
                        ])
                    #expect(!containsSecret(run.stdout + run.stderr, of: first))
                    #expect(!containsSecret(run.stdout + run.stderr, of: second))

                    // A same-origin redirect carries the token on; the new token needs no refresh.
                    seen.requests.withLock { $0.removeAll() }
                    let same = try await sandbox.run(["request", server.url("/same").absoluteString])
                    #expect(same.status == 0, "stderr: \(same.stderr)")
                    #expect(try jsonObject(same.stdout)["path"] as? String == "/echo")
                    #expect(seen.all.map(\.path) == ["/same", "/echo"])
                    #expect(seen.all.allSatisfy { $0.authorization == "Bearer \(second.tokens.accessToken)" })

                    // A redirect to another origin is followed without the token.
                    seen.requests.withLock { $0.removeAll() }
                    let cross = try await sandbox.run(["request", server.url("/other").absoluteString])
                    #expect(cross.status == 0, "stderr: \(cross.stderr)")
                    #expect(cross.stdout == "elsewhere\n")
                    #expect(seen.all.map(\.server) == ["resource", "other"])
                    #expect(seen.all.first?.authorization == "Bearer \(second.tokens.accessToken)")
                    #expect(seen.all.last?.authorization == nil, "no Authorization field crosses origins")

                    // 303 turns a POST into a GET without the body; 307 keeps both.
                    let seeOther = try await sandbox.run([
                        "request", server.url("/see-other").absoluteString, "-d", "a=1",
                    ])
                    let seeOtherEcho = try jsonObject(seeOther.stdout)
                    #expect(seeOtherEcho["method"] as? String == "GET")
                    #expect(seeOtherEcho["body"] as? String == "")
                    let keep = try await sandbox.run(["request", server.url("/keep").absoluteString, "-d", "a=1"])
                    let keepEcho = try jsonObject(keep.stdout)
                    #expect(keepEcho["method"] as? String == "POST")
                    #expect(keepEcho["body"] as? String == "a=1")
                    #expect(keepEcho["content_type"] as? String == "application/x-www-form-urlencoded")

                    // A redirect to http on another machine, or one too many, is refused.
                    for path in ["/insecure", "/loop"] {
                        let refused = try await sandbox.run(["request", server.url(path).absoluteString])
                        #expect(refused.status == ExitStatus.invalidInput, "\(path): \(refused.stderr)")
                        #expect(refused.stdout.isEmpty)
                        #expect(refused.stderr.contains("redirect"), "\(refused.stderr)")
                    }

                    // The exit status follows the status class; the body still goes to stdout.
                    let missing = try await sandbox.run(["request", server.url("/missing").absoluteString, "--include"])
                    #expect(missing.status == ExitStatus.httpClientError)
                    #expect(missing.stdout == "no such thing\n")
                    #expect(missing.stderr.contains("HTTP 404"))
                    let broken = try await sandbox.run(["request", server.url("/broken").absoluteString])
                    #expect(broken.status == ExitStatus.httpServerError)
                    #expect(broken.stderr.isEmpty, "without -i nothing but the body: \(broken.stderr)")

                    // A token the server keeps refusing: one refresh, one retry, then the 401.
                    let refreshesBefore = provider.refreshRequests.count
                    seen.requests.withLock { $0.removeAll() }
                    let refusedAgain = try await sandbox.run(["request", server.url("/always-401").absoluteString])
                    #expect(refusedAgain.status == ExitStatus.httpClientError, "\(refusedAgain.stderr)")
                    #expect(provider.refreshRequests.count == refreshesBefore + 1)
                    #expect(seen.all.count == 2, "sent twice, not more")
                }
            }
        }
    }

    @Test func theBodyComesFromAFileOrStandardInput() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let login = try await sandbox.run(provider.loginArguments(["--device", "--store", "file"]))
            try #require(login.status == 0, "login failed: \(login.stderr)")
            let seen = Seen()
            try await LoopbackHTTPServer.withServer(
                handler: Self.resource(
                    provider: provider, refused: "", other: URL(string: "http://127.0.0.1:9")!, seen: seen)
            ) { server in
                let file = sandbox.root + "/body.json"
                try Data(#"{"name":"from a file"}"#.utf8).write(to: URL(fileURLWithPath: file))
                let fromFile = try await sandbox.run([
                    "request", "-X", "PUT", "-H", "Content-Type: application/json", "-d", "@" + file,
                    server.url("/echo").absoluteString,
                ])
                #expect(fromFile.status == 0, "\(fromFile.stderr)")
                let echoed = try jsonObject(fromFile.stdout)
                #expect(echoed["method"] as? String == "PUT")
                #expect(echoed["body"] as? String == #"{"name":"from a file"}"#)
                #expect(echoed["content_type"] as? String == "application/json")

                let process = try CLIProcess(
                    ["request", "-d", "-", server.url("/echo").absoluteString], environment: sandbox.environment,
                    keepStandardInputOpen: true)
                process.type("line one\nline two\n")
                process.closeStandardInput()
                let status = try await process.waitForExit()
                #expect(status == 0, "\(process.standardError)")
                let fromInput = try jsonObject(process.standardOutput)
                #expect(fromInput["method"] as? String == "POST")
                #expect(fromInput["body"] as? String == "line one\nline two\n")

                let unreadable = try await sandbox.run([
                    "request", "-d", "@" + sandbox.root + "/none", server.url("/echo").absoluteString,
                ])
                #expect(unreadable.status == ExitStatus.usage)
                #expect(unreadable.stderr.contains("cannot read the body file"))
            }
        }
    }

    @Test func onlyHTTPSOrLoopbackHTTPIsSentTo() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        for url in ["http://example.com/api", "http://127.attacker.example/api", "ftp://127.0.0.1/x"] {
            let run = try await sandbox.run(["request", url])
            #expect(run.status == ExitStatus.usage, "\(url): \(run.stderr)")
            #expect(run.stderr.contains("must use https"), "\(url): \(run.stderr)")
        }
        let notSignedIn = try await sandbox.run(["request", "https://127.0.0.1:9/api", "--profile", "work"])
        #expect(notSignedIn.status == ExitStatus.notSignedIn)
        #expect(notSignedIn.stderr.contains("webauth login --profile work"))
        let badHeader = try await sandbox.run(["request", "https://127.0.0.1:9/api", "-H", "no colon"])
        #expect(badHeader.status == ExitStatus.usage)
    }
}
