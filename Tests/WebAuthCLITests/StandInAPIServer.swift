// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthEmbeddedProvider
import WebAuthProcess
import WebAuthTestSupport

/// The stand-in Kubernetes API server (`Tests/Fixtures/kube-api-server/server.py`) and its
/// client (`client.py`, the official Python `kubernetes` client), each run as a real process
/// with the test Python environment.
final class StandInAPIServer: Sendable {
    /// How the server checks the bearer token.
    enum Check {
        /// An ID token signed by a key of `jwks`, from `issuer`, for `audience`.
        case idToken(jwks: URL, issuer: URL, audience: String)
        /// An access token that the provider's UserInfo endpoint accepts.
        case accessToken(userinfo: URL)
    }

    /// Where the server listens, `http://127.0.0.1:PORT`.
    let url: URL
    private let process: Subprocess

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/kube-api-server")

    /// Starts the server and waits for its `listening on` line.
    init(_ check: Check) async throws {
        let python = try Self.python()
        var arguments = [Self.directory.appendingPathComponent("server.py").path, "--lifetime", "300"]
        switch check {
        case .idToken(let jwks, let issuer, let audience):
            arguments += ["--jwks", jwks.absoluteString, "--issuer", issuer.absoluteString, "--audience", audience]
        case .accessToken(let userinfo):
            arguments += ["--userinfo", userinfo.absoluteString]
        }
        process = try Subprocess(
            executable: python, arguments: arguments, standardInput: .pipe, standardOutput: .pipe,
            standardError: .null)
        var received = ""
        var found: URL?
        if let output = process.standardOutput {
            for await bytes in output {
                received += String(decoding: bytes, as: UTF8.self)
                if let line = received.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                    found = URL(string: String(line.dropFirst("listening on ".count)))
                    break
                }
            }
        }
        guard let found else {
            await process.terminate()
            throw CLITestError("the stand-in API server did not start: \(received)")
        }
        url = found
    }

    /// Stops the server.
    func stop() async { await process.terminate(grace: .seconds(2)) }

    /// The requests the server answered: path, status and the token's subject.
    func log() async throws -> [[String: Any]] {
        let request = "GET /log HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        let response = try await RawHTTPClient.exchange(port: url.port ?? 0, bytes: Array(request.utf8))
        return try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [[String: Any]] ?? []
    }

    /// Runs `client.py --kubeconfig kubeconfig` with `environment` (and this process's `PATH`).
    static func runClient(kubeconfig: String, environment: [String: String]) async throws -> Subprocess.Completion {
        let python = try python()
        var withPath = environment
        withPath["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        let environment = withPath
        let client = directory.appendingPathComponent("client.py").path
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try Subprocess.runToCompletion(
                            python, [client, "--kubeconfig", kubeconfig], environment: environment)
                    })
            }
        }
    }

    /// A kubeconfig whose one user runs `webauth` with `arguments` as its exec plugin, with
    /// `interactiveMode`, and (with `provideClusterInfo`) tells it which cluster it asks for.
    static func kubeconfig(
        server: URL, apiVersion: String, arguments: [String], interactiveMode: String = "Never",
        provideClusterInfo: Bool = false
    ) -> String {
        let args = arguments.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            apiVersion: v1
            kind: Config
            clusters:
            - name: stand-in
              cluster:
                server: \(server.absoluteString)
            users:
            - name: webauth
              user:
                exec:
                  apiVersion: \(apiVersion)
                  command: \(CLIProcess.executable.path)
                  args: [\(args)]
                  interactiveMode: \(interactiveMode)
                  provideClusterInfo: \(provideClusterInfo)
            contexts:
            - name: stand-in
              context:
                cluster: stand-in
                user: webauth
            current-context: stand-in

            """
    }

    static func python() throws -> String {
        guard let python = TestFixture.python else { throw CLITestError("no Python for the fixtures") }
        return python
    }
}
