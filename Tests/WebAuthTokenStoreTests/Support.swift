// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthOAuth
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The permission bits and owner of `path` (not following links).
func permissions(of path: String) -> (mode: mode_t, owner: uid_t)? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return (info.st_mode & 0o7777, info.st_uid)
}

/// An entry whose refresh token is `rt-<counter>`.
func entry(_ counter: Int, padding: Int = 0) -> StoredTokens {
    StoredTokens(
        tokens: TokenSet(
            accessToken: "at-\(counter)-secret-value", refreshToken: "rt-\(counter)",
            idToken: padding > 0 ? String(repeating: "x", count: padding) : nil,
            expiresAt: Date(timeIntervalSince1970: 1_900_000_000), scopes: ["openid", "profile"],
            receivedAt: Date(timeIntervalSince1970: 1_800_000_000)),
        clientID: "client-1", issuer: "https://issuer.example", tokenEndpoint: "https://issuer.example/token",
        savedAt: Date(timeIntervalSince1970: 1_800_000_000))
}

/// The `k` of an entry's `rt-k` refresh token.
func counter(of stored: StoredTokens?) -> Int? {
    guard let token = stored?.tokens.refreshToken, token.hasPrefix("rt-") else { return nil }
    return Int(token.dropFirst(3))
}

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out: \(what)" }
}

/// Waits for `process` to exit, at most `limit`; on time out it is killed and this throws.
func exitStatus(of process: Subprocess, within limit: Duration, what: String) async throws -> Int32 {
    guard let status = await withDeadline(limit, { await process.waitForExit() }) else {
        await process.terminate(grace: .milliseconds(100))
        throw TimedOut(what: what)
    }
    return status
}

/// Runs this test binary again as a child process that runs only ``ChildRole/childProcessEntryPoint()``, in the
/// role `role`. That lets a test kill a process in the middle of the store's own write path,
/// or have two processes contend for a lock, with no helper program of its own.
enum ChildProcess {
    static let roleVariable = "WEBAUTH_TOKENSTORE_TEST_ROLE"

    static func start(role: String, directory: String, extra: [String: String] = [:], log: String) throws
        -> Subprocess
    {
        // A child never starts children: if the filter were ignored, this stops a fork bomb.
        guard ProcessInfo.processInfo.environment[roleVariable] == nil else { throw POSIXError(.EPERM) }
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var environment = ProcessInfo.processInfo.environment
        environment[roleVariable] = role
        environment["WEBAUTH_TOKENSTORE_TEST_DIRECTORY"] = directory
        environment.merge(extra) { $1 }
        return try Subprocess(
            executable: executable,
            arguments: ["--testing-library", "swift-testing", "--filter", "ChildRole"],
            environment: environment, output: log)
    }
}
