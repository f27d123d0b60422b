import Foundation
import Testing
import WebAuthFastPath
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A stand-in `secret-tool`: one shell script, answering by the profile asked for (the fifth
/// argument), in a directory of its own. Written once, with its descriptor closed on `exec` and
/// run once through `Subprocess` (which waits out `ETXTBSY` from a child another thread started
/// while the file was open), so that no test runs a file still open for writing somewhere.
private let standInDirectory: String = {
    var template = Array("/tmp/webauth-secret-tool-XXXXXX".utf8CString)
    let directory = String(cString: mkdtemp(&template)!)
    let script = #"""
        #!/bin/sh
        case "$5" in
            echo) printf '%s|%s|%s|%s|' "$*" "$DBUS_SESSION_BUS_ADDRESS" "$WEBAUTH_CLIENT_SECRET" "$OTHER"; cat ;;
            missing) exit 1 ;;
            failing) printf '{}'; exit 3 ;;
            complaining) printf '{}'; echo 'GDBus.Error: the collection is locked' >&2 ;;
            large) head -c 9000 /dev/zero ;;
            killed) kill -9 $$ ;;
            slow) echo $$ >"$HOME/pid"; exec sleep 30 ;;
            lingering) echo $$ >"$HOME/pid"; printf '{}'; exec >&- 2>&- sleep 30 ;;
            *) touch "$HOME/ran"; printf '{}' ;;
        esac

        """#
    let descriptor = open(directory + "/secret-tool", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o700)
    precondition(descriptor >= 0)
    _ = Array(script.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    _ = try? Subprocess.runToCompletion(directory + "/secret-tool", [], environment: ["HOME": directory])
    return directory
}()

/// The fast path's keyring read with the stand-in first on `PATH`: what it passes, and every
/// answer it refuses to take as the item. The real keyring is in ``FastPathKeyringTests``.
@Suite("Fast path: reading the keyring through secret-tool")
struct SecretToolLookupTests {
    /// A private home for one test, and an environment with the stand-in first on `PATH`, a
    /// D-Bus address, a client secret and another variable set.
    private func sandbox() throws -> (home: String, environment: [String: String]) {
        var template = Array("/tmp/webauth-secret-home-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        let home = String(cString: made)
        let environment = [
            "PATH": standInDirectory + ":/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent",
            "WEBAUTH_CLIENT_SECRET": "client-secret-value", "OTHER": "other-value", "HOME": home,
        ]
        return (home, environment)
    }

    @Test("It runs secret-tool lookup with the item's attributes, the bus and no secret, nothing on its input")
    func passesAttributesAndBusOnly() throws {
        let (home, environment) = try sandbox()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let answer = SecretToolLookup.secret(profile: "echo", environment: environment)
        #expect(
            answer.map { String(decoding: $0, as: UTF8.self) }
                == "lookup service webauth profile echo|unix:path=/nonexistent|||")
    }

    @Test(
        "Anything but a plain, small answer is left to the full program",
        arguments: ["missing", "failing", "complaining", "large", "killed"])
    func refusals(profile: String) throws {
        let (home, environment) = try sandbox()
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(SecretToolLookup.secret(profile: profile, environment: environment) == nil)
    }

    @Test("Without a D-Bus session or a secret-tool in an absolute directory, it runs nothing")
    func nothingToRun() throws {
        let (home, environment) = try sandbox()
        defer { try? FileManager.default.removeItem(atPath: home) }
        var noBus = environment
        noBus["DBUS_SESSION_BUS_ADDRESS"] = ""
        #expect(SecretToolLookup.secret(profile: "plain", environment: noBus) == nil)
        // The stand-in's directory, named relative to the current one: not searched.
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        var relative = environment
        relative["PATH"] = String(repeating: "../", count: depth) + standInDirectory.dropFirst()
        #expect(access(relative["PATH"]! + "/secret-tool", X_OK) == 0)
        #expect(SecretToolLookup.secret(profile: "plain", environment: relative) == nil)
        #expect(access(home + "/ran", F_OK) != 0)

        let answer = SecretToolLookup.secret(profile: "plain", environment: environment)
        #expect(answer == Array("{}".utf8))
        #expect(access(home + "/ran", F_OK) == 0)
    }

    @Test(
        "A secret-tool that does not answer, or does not end, in time is killed and reaped",
        .timeLimit(.minutes(1)), arguments: ["slow", "lingering"])
    func slowIsKilled(profile: String) throws {
        let (home, environment) = try sandbox()
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(SecretToolLookup.secret(profile: profile, environment: environment) == nil)
        let text = try String(contentsOfFile: home + "/pid", encoding: .utf8)
        let pid = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        // Reaped too: not even a zombie is left.
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }
}
