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

/// A D-Bus session of its own with an unlocked gnome-keyring-daemon, for one test.
///
/// `dbus-run-session` runs a shell that starts the daemon with a password on its standard input
/// (it creates a login keyring with it, unlocked, with no prompt), waits until the daemon owns
/// `org.freedesktop.secrets`, and writes the bus address to a file. The whole session is one
/// process group, ended by ``stop()``.
struct KeyringSession {
    let directory: String
    let process: Subprocess
    /// `DBUS_SESSION_BUS_ADDRESS` and `XDG_RUNTIME_DIR` for programs that use this keyring.
    let environment: [String: String]

    static var isInstalled: Bool {
        let programs: [String] = [
            "/usr/bin/dbus-run-session", "/usr/bin/gnome-keyring-daemon", "/usr/bin/secret-tool", "/usr/bin/dbus-send",
        ]
        return programs.allSatisfy { (path: String) in access(path, X_OK) == 0 }
    }

    static func start(in directory: String) async throws -> KeyringSession {
        let runtime = directory + "/run"
        mkdir(runtime, 0o700)
        let script = """
            printf 'webauth-cli-test' | gnome-keyring-daemon --foreground --unlock --components=secrets \
                >"$HOME/keyring.log" 2>&1 &
            n=0
            until dbus-send --session --print-reply --dest=org.freedesktop.DBus / \
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true; do
                n=$((n + 1)); [ $n -gt 400 ] && exit 3; sleep 0.05
            done
            printf '%s' "$DBUS_SESSION_BUS_ADDRESS" >"$HOME/bus.partial" && mv "$HOME/bus.partial" "$HOME/bus"
            wait
            """
        let environment = [
            "HOME": directory, "XDG_RUNTIME_DIR": runtime, "XDG_DATA_HOME": directory + "/data",
            "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
        ]
        let process = try Subprocess(
            executable: "/usr/bin/dbus-run-session", arguments: ["--", "/bin/sh", "-c", script],
            environment: environment, output: directory + "/session.log")
        let deadline = ContinuousClock.now + .seconds(40)
        while !process.hasExited, access(directory + "/bus", F_OK) != 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard access(directory + "/bus", F_OK) == 0, !process.hasExited else {
            await process.terminate(grace: .milliseconds(200))
            let log = (try? String(contentsOfFile: directory + "/session.log", encoding: .utf8)) ?? ""
            throw CLITestError("the keyring did not start: \(log)")
        }
        let bus = try String(contentsOfFile: directory + "/bus", encoding: .utf8)
        return KeyringSession(
            directory: directory, process: process,
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus, "XDG_RUNTIME_DIR": runtime])
    }

    func stop() async { await process.terminate(grace: .seconds(2)) }
}

@Suite("webauth with the desktop keyring, run as processes")
struct KeyringProfileTests {
    @Test(.enabled(if: KeyringSession.isInstalled), .timeLimit(.minutes(3)))
    func aProfileLivesInTheKeyringAndLaterCommandsFindIt() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let keyring = try await KeyringSession.start(in: sandbox.root)
        sandbox.extraEnvironment = keyring.environment
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
