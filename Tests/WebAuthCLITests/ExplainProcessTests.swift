// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthTestSupport

/// `webauth login --explain`, run as a process in each kind of place: which place applied and
/// why, the browser it would open and the way it would sign in — and that nothing was signed in.
@Suite("webauth login --explain, run as a process")
struct ExplainProcessTests {
    /// The variables the rules read, all unset (empty), so only what a test sets applies.
    static let nowhere = [
        "DISPLAY": "", "WAYLAND_DISPLAY": "", "SSH_CONNECTION": "", "SSH_CLIENT": "", "SSH_TTY": "", "BROWSER": "",
        "WSL_DISTRO_NAME": "", "container": "", "WEBAUTH_BROWSER": "",
    ]

    /// A directory with a fake program for each of `names`, which records that it ran.
    private func programs(_ names: [String], in sandbox: ProfileSandbox) throws -> String {
        let directory = sandbox.root + "/bin"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in names {
            let script = "#!/bin/sh\necho \"$0\" >> '\(sandbox.root)/ran'\n"
            _ = FileManager.default.createFile(
                atPath: directory + "/" + name, contents: Data(script.utf8), attributes: [.posixPermissions: 0o700])
        }
        return directory
    }

    private func explain(
        _ variables: [String: String], provider: EmbeddedProvider, sandbox: inout ProfileSandbox, json: Bool = false
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        sandbox.extraEnvironment = Self.nowhere.merging(variables) { $1 }
        return try await sandbox.run(provider.loginArguments(["--explain"] + (json ? ["--json"] : [])))
    }

    @Test func eachPlaceIsNamedWithItsReasonAndWhatItWouldDo() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let bin = try programs(["xdg-open", "wslview", "explorer.exe", "forwarder"], in: sandbox)
        let path = bin + ":/usr/bin:/bin"
        try await EmbeddedProvider.withCLIProvider { provider in
            let ssh = try await explain(["PATH": path, "SSH_TTY": "/dev/pts/3"], provider: provider, sandbox: &sandbox)
            #expect(ssh.status == 0, "stderr: \(ssh.stderr)")
            #expect(ssh.stdout.contains("where: ssh (SSH_TTY is set, and neither DISPLAY nor WAYLAND_DISPLAY is)"))
            #expect(ssh.stdout.contains("browser: none: the URL is printed"))
            #expect(ssh.stdout.contains("sign-in: device"), "the provider offers the device flow: \(ssh.stdout)")

            let wsl = try await explain(
                ["PATH": path, "WSL_DISTRO_NAME": "Debian"], provider: provider, sandbox: &sandbox)
            #expect(wsl.stdout.contains("where: wsl (WSL_DISTRO_NAME is set)"))
            #expect(wsl.stdout.contains("browser: wslview"))
            #expect(wsl.stdout.contains("sign-in: browser"))

            let container = try await explain(
                ["PATH": path, "container": "podman"], provider: provider, sandbox: &sandbox)
            // This machine may be a container itself: then its marker file is the reason given.
            #expect(container.stdout.contains("where: container ("), "\(container.stdout)")
            #expect(container.stdout.contains("sign-in: device"))

            let helper = try await explain(
                ["PATH": path, "BROWSER": "forwarder", "SSH_TTY": "/dev/pts/3"], provider: provider, sandbox: &sandbox)
            #expect(helper.stdout.contains("where: browser-helper"))
            #expect(helper.stdout.contains("browser: forwarder"))
            #expect(helper.stdout.contains("sign-in: browser"))

            let desktop = try await explain(
                ["PATH": path, "DISPLAY": ":0"], provider: provider, sandbox: &sandbox, json: true)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(desktop.stdout.utf8)) as? [String: String])
            #expect(object["place"] == "desktop")
            #expect(object["place_reason"] == "DISPLAY is set")
            #expect(object["method"] == "browser")

            // Explaining signs nobody in and runs no browser.
            #expect(try sandbox.storedEntry() == nil)
            #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/ran"))
            #expect(provider.requests(to: .token).isEmpty)
        }
    }

    /// Over SSH with no display, the pasted-redirect way also prints the `ssh -L` line for the
    /// listener's port; the browser on the person's own computer, whose request the forward
    /// carries to this machine's loopback, finishes the sign-in without anything pasted.
    @Test func overSSHThePrintedPortForwardReachesTheOpenListener() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        sandbox.extraEnvironment = Self.nowhere.merging([
            "SSH_CONNECTION": "198.51.100.20 51234 192.0.2.7 22", "USER": "alice",
        ]) { $1 }
        try await EmbeddedProvider.withCLIProvider { provider in
            let process = try sandbox.start(provider.loginArguments(["--no-browser", "--store", "file"]))
            let stderr = try await process.waitForStandardError(containing: "paste it here", timeout: .seconds(60))
            let lines = stderr.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let forward = try #require(lines.first { $0.hasPrefix("ssh -N -L ") }, "\(stderr)")
            let fields = forward.split(separator: " ")
            #expect(fields.last == "alice@192.0.2.7")
            let spec = try #require(fields.count == 5 ? fields[3].split(separator: ":") : nil)
            let port = try #require(Int(spec[0]))
            #expect(spec.count == 3 && spec[1] == "127.0.0.1" && spec[2] == spec[0], "\(forward)")
            let issuer = provider.issuer.absoluteString
            let shown = try #require(lines.first { $0.hasPrefix(issuer) })
            let authorization = try #require(URL(string: shown))

            // The person's browser signs in and is sent to 127.0.0.1:PORT on their computer,
            // which the forward delivers here, unchanged.
            let address = try await provider.redirectToPaste(from: authorization)
            let redirect = try #require(URLComponents(string: address))
            #expect(redirect.port == port)
            let page = try await RawHTTPClient.get(
                port: port, target: redirect.path + "?" + (redirect.percentEncodedQuery ?? ""))
            #expect(page.status == 200)
            #expect(try await process.waitForExit(timeout: .seconds(60)) == 0, "\(process.standardError)")
            #expect(try sandbox.storedEntry() != nil)
        }
    }
}
