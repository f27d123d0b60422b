// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthEmbeddedProvider
import WebAuthProcess
import WebAuthTestSupport

/// `Tests/Fixtures/git-http-server/server.py` run for one test: git's smart HTTP on 127.0.0.1
/// over the bare repositories in a directory, each password checked at a provider's UserInfo.
/// It ends when ``stop()`` closes its standard input (or after its lifetime).
final class GitHTTPServer: Sendable {
    private let process: Subprocess
    /// `http://127.0.0.1:PORT`.
    let origin: String

    /// Starts the server for the repositories in `repositories`, checking tokens at `userinfo`;
    /// waits at most 30 s for it to listen.
    init(repositories: String, userinfo: URL) async throws {
        guard let python = TestFixture.python else { throw CLITestError("no python3") }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/git-http-server/server.py").path
        process = try Subprocess(
            executable: python,
            arguments: [
                script, "--repositories", repositories, "--userinfo", userinfo.absoluteString, "--lifetime", "600",
            ],
            environment: ProcessInfo.processInfo.environment, standardInput: .pipe, standardOutput: .pipe,
            standardError: .null, newProcessGroup: false)
        let output = process.standardOutput!
        let found = Task { () -> String? in
            var text = ""
            for await bytes in output {
                text += String(decoding: bytes, as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                    return String(line.dropFirst("listening on ".count))
                }
            }
            return nil
        }
        let bound = watchdog(after: .seconds(30)) { found.cancel() }
        defer { bound.cancel() }
        guard let origin = await found.value else {
            await process.terminate()
            throw CLITestError("the git server did not start within 30 s")
        }
        self.origin = origin
    }

    /// The requests so far, from `GET /log`: method, path, status, username, accepted.
    func log() async throws -> [[String: Any]] {
        let answer = try await RawHTTPClient.request(method: "GET", url: URL(string: origin + "/log")!)
        return try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [[String: Any]] ?? []
    }

    /// Ends the server and waits for it.
    func stop() async {
        try? process.standardInput?.close()
        await process.terminate()
    }
}
