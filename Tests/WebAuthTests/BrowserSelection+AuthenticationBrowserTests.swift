// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth

/// The person's web-authentication browser in the automatic choice: sessions it can honour go
/// to it; the others fall back as without one (a controlled browser for what the person's
/// browser cannot do).
@Suite("Choosing the registered web-authentication browser")
struct AuthenticationBrowserSelectionTests {
    /// A desktop with `xdg-open` and `chromium` on `PATH` (never run here) and a program
    /// registered with `capabilities`.
    private func desktop(
        _ capabilities: AuthenticationBrowserCapabilities?
    ) throws -> (root: URL, selection: BrowserSelection) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "webauth-selection-\(UUID().uuidString)")
        let bin = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for program in ["xdg-open", "chromium", "example-browser"] {
            _ = FileManager.default.createFile(
                atPath: bin.appendingPathComponent(program).path, contents: Data("#!/bin/sh\nexit 0\n".utf8),
                attributes: [.posixPermissions: 0o700])
        }
        let variables = [
            "PATH": bin.path, "DISPLAY": ":0", "HOME": root.path,
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_DATA_DIRS": root.appendingPathComponent("system").path,
        ]
        if let capabilities {
            try AuthenticationBrowserRegistry(environment: DesktopEnvironment(variables: variables)).register(
                name: "Example", executablePath: bin.appendingPathComponent("example-browser").path,
                capabilities: capabilities)
        }
        return (root, BrowserSelection(environment: variables))
    }

    private let scheme = BrowserNeeds(callback: .customScheme("com.example.app"))
    private let ephemeralScheme = BrowserNeeds(
        callback: .customScheme("com.example.app"), prefersEphemeralSession: true)
    private let https = BrowserNeeds(callback: .https(host: "example.com", path: "/cb"))
    private let loopback = BrowserNeeds(callback: .loopback(), callbackIsReceivable: true)

    @Test func aCustomSchemeSessionGoesToTheRegisteredProgram() throws {
        let (root, selection) = try desktop(AuthenticationBrowserCapabilities())
        defer { try? FileManager.default.removeItem(at: root) }
        let browser = try #require(selection.browser(for: scheme) as? AuthenticationBrowser)
        #expect(browser.name == "Example")
        #expect(!browser.capabilities.contains(.ephemeralSessions))
        #expect(selection.browser(for: loopback) is SystemBrowser, "loopback sessions keep the person's browser")
    }

    @Test func whatTheProgramDoesNotDeclareFallsBackToAControlledBrowser() throws {
        let (root, selection) = try desktop(AuthenticationBrowserCapabilities())
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(selection.browser(for: https) is ChromiumBrowser, "no CallbackURLMatchingIsSupported")
        #expect(selection.browser(for: ephemeralScheme) is ChromiumBrowser, "no EphemeralBrowserSessionIsSupported")
    }

    @Test func declaredCapabilitiesAreHonoured() throws {
        let (root, selection) = try desktop(
            AuthenticationBrowserCapabilities(
                ephemeralBrowserSessionIsSupported: true, callbackURLMatchingIsSupported: true))
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(selection.browser(for: https) is AuthenticationBrowser)
        let ephemeral = try #require(selection.browser(for: ephemeralScheme) as? AuthenticationBrowser)
        #expect(ephemeral.capabilities.contains(.ephemeralSessions))
    }

    @Test func aProgramThatIsNotSupportedOrMissingIsIgnored() throws {
        let (root, selection) = try desktop(AuthenticationBrowserCapabilities(isSupported: false))
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(selection.browser(for: scheme) is ChromiumBrowser)
        let (otherRoot, unregistered) = try desktop(nil)
        defer { try? FileManager.default.removeItem(at: otherRoot) }
        #expect(unregistered.browser(for: scheme) is ChromiumBrowser)
    }

    @Test func anExplicitChoiceStillWins() throws {
        let (root, selection) = try desktop(AuthenticationBrowserCapabilities())
        defer { try? FileManager.default.removeItem(at: root) }
        var explicit = selection
        explicit.choice = .chromium
        #expect(explicit.browser(for: scheme) is ChromiumBrowser)
    }
}
