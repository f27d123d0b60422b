// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The test scenario's other half (scripts/test-desktop-example): an OpenID Connect provider and
// the person's browser, scripted.
//
//   webauth-example-gtk-provider serve --client-id ID --redirect-uri URI
//       Runs the embedded provider on 127.0.0.1 with a public client for URI and the demo
//       person (demo / demo-password, subject demo-user). Prints the issuer, then serves until
//       ended.
//   webauth-example-gtk-provider browse URL
//       The browser: signs in on the provider's pages as the demo person and hands the
//       redirect to the app's scheme to `xdg-open`, as a browser hands it to the desktop. When
//       the file named by WEBAUTH_EXAMPLE_BROWSER_PLAN says "close", it opens the page and
//       closes without signing in. When WEBAUTH_EXAMPLE_BROWSER_LOG names a file, one line per
//       step goes there, with the time in nanoseconds since 1970 before handing the URL over.
import Dispatch
import Foundation
import WebAuthEmbeddedProvider

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("webauth-example-gtk-provider: \(message)\n".utf8))
    exit(1)
}

func log(_ line: String) {
    guard let path = ProcessInfo.processInfo.environment["WEBAUTH_EXAMPLE_BROWSER_LOG"],
        let handle = FileHandle(forWritingAtPath: path)
            ?? {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                return FileHandle(forWritingAtPath: path)
            }()
    else { return }
    handle.seekToEndOfFile()
    handle.write(Data((line + "\n").utf8))
    try? handle.close()
}

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "" : arguments.removeFirst()

switch command {
case "serve":
    var clientID: String?
    var redirectURI: URL?
    while !arguments.isEmpty {
        let option = arguments.removeFirst()
        guard !arguments.isEmpty else { fail("\(option) needs a value") }
        let value = arguments.removeFirst()
        switch option {
        case "--client-id": clientID = value
        case "--redirect-uri": redirectURI = URL(string: value)
        default: fail("unknown option \(option)")
        }
    }
    guard let clientID, let redirectURI else { fail("serve needs --client-id and --redirect-uri") }
    let configuration = EmbeddedProvider.Configuration(
        users: [.demo],
        clients: [EmbeddedProvider.Client(id: clientID, name: "webauth GTK example", redirectURIs: [redirectURI])])
    Task {
        do {
            let provider = try await EmbeddedProvider.start(configuration)
            FileHandle.standardOutput.write(Data((provider.issuer.absoluteString + "\n").utf8))
            // Serves until the process is ended.
            while true { try await Task.sleep(for: .seconds(3600)) }
        } catch {
            fail("cannot start the provider: \(error)")
        }
    }
    dispatchMain()

case "browse":
    guard let text = arguments.first, let url = URL(string: text) else { fail("browse needs a URL") }
    let environment = ProcessInfo.processInfo.environment
    let plan = environment["WEBAUTH_EXAMPLE_BROWSER_PLAN"].flatMap {
        try? String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    Task {
        if plan == "close" {
            // The person looks at the sign-in page and closes the browser.
            let status = (try? await URLSession.shared.data(from: url).1 as? HTTPURLResponse)?.statusCode ?? 0
            log("opened the sign-in page (HTTP \(status)) and closed the browser")
            exit(0)
        }
        let agent = ScriptedUserAgent(
            username: EmbeddedProvider.User.demo.username, password: EmbeddedProvider.User.demo.password)
        let redirect: URL
        do {
            redirect = try await agent.redirectAddress(from: url)
        } catch {
            log("sign-in failed: \(error)")
            fail("the scripted sign-in failed: \(error)")
        }
        log("signed in; handing the redirect to xdg-open at \(Int64(Date().timeIntervalSince1970 * 1e9))")
        let opener = Process()
        opener.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        opener.arguments = ["xdg-open", redirect.absoluteString]
        var openerEnvironment = environment
        openerEnvironment["BROWSER"] = nil
        opener.environment = openerEnvironment
        do {
            try opener.run()
        } catch {
            fail("cannot run xdg-open: \(error)")
        }
        opener.waitUntilExit()
        log("xdg-open ended with status \(opener.terminationStatus)")
        exit(opener.terminationStatus)
    }
    dispatchMain()

default:
    fail("usage: webauth-example-gtk-provider serve --client-id ID --redirect-uri URI | browse URL")
}
