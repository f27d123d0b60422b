// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTokenStore

/// Saves `entry` in the sandbox's keyring as `webauth login` does, and the index naming the
/// keyring when `index` is set.
private func inKeyring(_ entry: StoredTokens, index: Bool = true) -> @Sendable (ProfileSandbox) async throws -> Void {
    { sandbox in
        try await SecretServiceTokenStore(environment: sandbox.environment).save(entry, profile: "default")
        if index {
            let text =
                #"{"bindings":{"default":{"gitHosts":["git.example.com"]}},"profiles":{"default":"keyring"},"version":1}"#
            #expect(FileManager.default.createFile(atPath: sandbox.indexPath, contents: Data(text.utf8)))
        }
    }
}

/// The situations of the keyring store: the fast path reads the item with `secret-tool` when the
/// store is known and everything is as the store leaves it; anything else is the full program's.
private let keyringSituations: [FastPathSituation] = [
    FastPathSituation(
        name: "token, index says keyring", arguments: ["token"], fast: true, prepare: inKeyring(fullEntry())),
    FastPathSituation(
        name: "token --store keyring", arguments: ["token", "--store", "keyring"], fast: true,
        prepare: inKeyring(fullEntry(), index: false)),
    FastPathSituation(
        name: "git get, keyring", arguments: ["git-credential", "get"], input: gitHTTPS, fast: true,
        prepare: inKeyring(fullEntry())),
    FastPathSituation(
        name: "exec-credential, keyring", arguments: ["exec-credential"],
        environment: ["KUBERNETES_EXEC_INFO": plainExecInfo], fast: true, prepare: inKeyring(fullEntry())),
    FastPathSituation(
        name: "token, keyring, expiring without a refresh token", arguments: ["token"], fast: false,
        prepare: inKeyring(fullEntry(expiresIn: 30, refreshToken: nil))),
    FastPathSituation(
        name: "token, index says keyring, no item", arguments: ["token"], fast: false,
        prepare: { sandbox in
            try await inKeyring(fullEntry())(sandbox)
            try await SecretServiceTokenStore(environment: sandbox.environment).delete(profile: "default")
        }),
    FastPathSituation(
        name: "token, two items for the profile", arguments: ["token"], fast: false,
        prepare: { sandbox in
            try await inKeyring(fullEntry())(sandbox)
            // A second, equally valid item: whichever secret-tool reads, the token is the same.
            try fullEntry().encoded().write(to: URL(fileURLWithPath: sandbox.root + "/copy.json"))
            try secretTool(
                "secret-tool store --label webauth service webauth profile default copy 2 <'\(sandbox.root)/copy.json'",
                sandbox)
        }),
    FastPathSituation(
        name: "token, keyring item not an entry", arguments: ["token", "--store", "keyring"], fast: false,
        prepare: { sandbox in
            try secretTool("secret-tool clear service webauth profile default", sandbox)
            try secretTool(
                #"printf '{"version":1,' | secret-tool store --label webauth service webauth profile default"#, sandbox)
        }),
    FastPathSituation(
        name: "token, keyring, lock directory not made yet", arguments: ["token"], fast: false,
        prepare: { sandbox in
            try await inKeyring(fullEntry())(sandbox)
            try FileManager.default.removeItem(atPath: sandbox.stateHome + "/webauth/locks")
        }),
    FastPathSituation(
        name: "token, keyring unreachable", arguments: ["token", "--store", "keyring"],
        environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/webauth-bus"], fast: false,
        prepare: inKeyring(fullEntry(), index: false)),
    FastPathSituation(
        name: "token, keyring, no secret-tool", arguments: ["token"], environment: ["PATH": "/nonexistent"],
        fast: false, prepare: inKeyring(fullEntry())),
    // Last: nothing here can unlock the keyring again (that takes a prompt).
    FastPathSituation(
        name: "token, keyring locked", arguments: ["token"], fast: false,
        prepare: { sandbox in
            // Saved the first time; once locked, the item is there and cannot be written.
            try? await inKeyring(fullEntry())(sandbox)
            _ = try SecretServiceTokenStore(environment: sandbox.environment)  // its lock directory
            let text = #"{"profiles":{"default":"keyring"},"version":1}"#
            #expect(FileManager.default.createFile(atPath: sandbox.indexPath, contents: Data(text.utf8)))
            try secretTool(
                "dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets "
                    + "org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login",
                sandbox)
        }),
]

/// Runs `command` with `/bin/sh` on the sandbox's keyring bus; fails the test if it fails.
private func secretTool(_ command: String, _ sandbox: ProfileSandbox) throws {
    let result = try Subprocess.runToCompletion(
        "/bin/sh", ["-c", command], environment: sandbox.environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
    #expect(Subprocess.exitCode(of: result.status) == 0, "\(command): \(result.standardError)")
}

@Suite("Fast path: the keyring store, with a real keyring daemon", TestFixture.keyring.required)
struct FastPathKeyringTests {
    @Test(
        "Standard output, standard error and exit status match, fast or full, with the entry in the keyring",
        .timeLimit(.minutes(5)))
    func sameResults() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let keyring = try await PrivateKeyring.start(in: sandbox.root)
        sandbox.extraEnvironment = keyring.busEnvironment
        do {
            for situation in keyringSituations {
                try await expectSameResults(situation, in: sandbox)
            }
        } catch {
            await keyring.stop()
            throw error
        }
        await keyring.stop()
    }
}
