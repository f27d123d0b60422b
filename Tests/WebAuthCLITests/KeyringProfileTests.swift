import Foundation
import Testing
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("webauth with the desktop keyring, run as processes")
struct KeyringProfileTests {
    @Test(.enabled(if: PrivateKeyring.isInstalled), .timeLimit(.minutes(3)))
    func aProfileLivesInTheKeyringAndLaterCommandsFindIt() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let keyring = try await PrivateKeyring.start(in: sandbox.root)
        sandbox.extraEnvironment = keyring.busEnvironment
        do {
            try await signInAndOut(sandbox)
        } catch {
            await keyring.stop()
            throw error
        }
        await keyring.stop()
    }

    private func signInAndOut(_ sandbox: ProfileSandbox) async throws {
        try await HostileProvider.withProvider { provider in
            // automatic: the keyring answers, so the tokens go there and the index says so.
            let login = try await sandbox.run(provider.loginArguments(["--device", "--profile", "work", "--json"]))
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(try jsonObject(login.stdout)["store"] as? String == "keyring")
            #expect(try sandbox.storedEntry("work") == nil, "no token file")
            #expect(ProfileIndex(environment: sandbox.environment).kind(of: "work") == .keyring)

            let store = try SecretServiceTokenStore(environment: sandbox.environment)
            let entry = try #require(try await store.load(profile: "work"))
            #expect(entry.configuration?.issuer?.absoluteString == provider.issuer)

            let token = try await sandbox.run(["token", "--profile", "work"])
            #expect(token.status == 0, "stderr: \(token.stderr)")
            #expect(token.stdout == entry.tokens.accessToken + "\n")

            let refreshed = try await sandbox.run([
                "token", "--profile", "work", "--store", "keyring", "--min-validity", "7200",
            ])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            let rotated = try #require(try await store.load(profile: "work"))
            #expect(refreshed.stdout == rotated.tokens.accessToken + "\n")
            #expect(rotated.tokens.refreshToken != entry.tokens.refreshToken)
            #expect(provider.isActive(refreshToken: try #require(rotated.tokens.refreshToken)))

            let status = try await sandbox.run(["status"])
            #expect(status.stdout.contains("work  (keyring: Secret Service (service=webauth))"))
            #expect(!containsSecret(status.stdout + status.stderr, of: rotated))

            let logout = try await sandbox.run(["logout", "--profile", "work"])
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(try await store.load(profile: "work") == nil)
        }
    }
}
