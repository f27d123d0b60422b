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
            let text = #"{"profiles":{"default":"keyring"},"version":1}"#
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
        name: "token, keyring item not an entry", arguments: ["token", "--store", "keyring"], fast: false,
        prepare: { sandbox in
            let stored = try Subprocess.runToCompletion(
                "/bin/sh",
                ["-c", #"printf '{"version":1,' | secret-tool store --label webauth service webauth profile default"#],
                environment: sandbox.environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
            #expect(Subprocess.exitCode(of: stored.status) == 0, "\(stored.standardError)")
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
]

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
