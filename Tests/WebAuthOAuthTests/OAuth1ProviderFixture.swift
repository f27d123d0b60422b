// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthProcess
import WebAuthTestSupport
import WebAuthURLSession

/// The independent OAuth 1.0a provider in `Tests/Fixtures/oauth1-provider/server.py`: oauthlib's
/// RFC 5849 server endpoints behind Python's `http.server` on 127.0.0.1, so every signature our
/// client makes is checked by code we did not write.
///
/// It needs ``TestFixture/python`` with oauthlib, which `scripts/test` installs (tests that use it
/// carry ``TestFixture/oauth1Provider``'s trait). Started with `Subprocess` — never `Foundation.Process` —
/// with its standard input on a pipe, so it also exits if this process dies; it lives at most
/// two minutes in any case. Use ``with(_:)``, which always stops it.
struct OAuth1ProviderFixture: Sendable {
    /// oauthlib's default checks want 20 to 30 letters and digits.
    static let consumerKey = "webauthOAuth1TestClient0"
    static let consumerSecret = "fixture consumer secret/with&reserved=chars"

    let port: Int
    private let process: Subprocess
    private let errorLog: String

    /// `http://127.0.0.1:{port}{path}`.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// A configuration for this provider with a loopback callback.
    func configuration(
        consumerSecret: String = OAuth1ProviderFixture.consumerSecret, authorizePath: String = "/authorize"
    ) -> OAuth1Configuration {
        OAuth1Configuration(
            consumerKey: Self.consumerKey, consumerSecret: consumerSecret, requestTokenURL: url("/initiate"),
            authorizationURL: url(authorizePath), accessTokenURL: url("/token"),
            callbackURL: URL(string: "http://127.0.0.1/callback")!)
    }

    /// One request the provider received, as its `/log` reports it.
    struct LogEntry: Decodable, Sendable, Equatable, CustomStringConvertible {
        var method: String
        var path: String
        var status: Int
        var authorization: Bool
        var description: String { "\(method) \(path) \(status)\(authorization ? " (signed)" : "")" }
    }

    /// The requests received so far.
    func log() async throws -> [LogEntry] {
        let response = try await URLSessionTransport().send(HTTPTransportRequest(method: "GET", url: url("/log")))
        return try JSONDecoder().decode([LogEntry].self, from: response.body)
    }

    /// Starts a provider, runs `body` with it, and stops it whatever happens.
    static func with<Result: Sendable>(_ body: (OAuth1ProviderFixture) async throws -> Result) async throws -> Result {
        try await withShutdown(of: try await start(), shutdown: { await $0.stop() }, body)
    }

    /// Starts the provider and waits (at most 30 seconds) for the line that names its port.
    static func start() async throws -> OAuth1ProviderFixture {
        let python = try findPython()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/oauth1-provider/server.py").path
        let errorLog = FileManager.default.temporaryDirectory
            .appendingPathComponent("webauth-oauth1-provider-\(UUID().uuidString).log").path
        let process = try Subprocess(
            executable: python,
            arguments: [
                "-u", script, "--consumer-key", consumerKey, "--consumer-secret", consumerSecret, "--lifetime", "120",
            ],
            standardInput: .pipe, standardOutput: .pipe, standardError: .file(errorLog))
        do {
            let line = try await firstLine(of: process.standardOutput, within: .seconds(30))
            guard line.hasPrefix("listening on http://127.0.0.1:"),
                let port = line.split(separator: ":").last.flatMap({ Int($0) })
            else {
                throw OAuth1FixtureError("unexpected first line: \(line)")
            }
            return OAuth1ProviderFixture(port: port, process: process, errorLog: errorLog)
        } catch {
            await process.terminate(grace: .seconds(1))
            let stderr = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: errorLog)
            throw OAuth1FixtureError(
                "the OAuth 1.0a provider (\(python) \(script)) did not start: \(error)\n\(stderr.suffix(2000))\n"
                    + "It needs oauthlib: run scripts/test, or python3 -m pip install -r Tests/Fixtures/requirements.txt"
            )
        }
    }

    /// Stops the provider: end of input, then `SIGTERM`, then `SIGKILL` after a second.
    func stop() async {
        try? process.standardInput?.close()
        await process.terminate(grace: .seconds(1))
        try? FileManager.default.removeItem(atPath: errorLog)
    }

    /// ``TestFixture/python``, or an error.
    private static func findPython() throws -> String {
        guard let python = TestFixture.python else {
            throw OAuth1FixtureError("python3 not found on PATH; the OAuth 1.0a provider needs Python 3 with oauthlib")
        }
        return python
    }

    /// The first line of `stream`, or an error once `limit` has passed or the stream ends first.
    private static func firstLine(of stream: AsyncStream<[UInt8]>?, within limit: Duration) async throws -> String {
        guard let stream else { throw OAuth1FixtureError("no standard output pipe") }
        let line = await withDeadline(limit) { () -> String? in
            var bytes: [UInt8] = []
            for await chunk in stream {
                bytes += chunk
                if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                    return String(decoding: bytes[..<newline], as: UTF8.self)
                }
            }
            return nil
        }
        guard let line else {
            throw OAuth1FixtureError("no port printed within \(limit) (or the provider exited first)")
        }
        return line
    }
}

struct OAuth1FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
