// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthCore

@Suite("Choosing a browser per session")
struct BrowserSelectionTests {
    /// A directory on `PATH` holding fake programs with the given names (never run here).
    private func path(with programs: [String]) throws -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "webauth-path-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for program in programs {
            let file = directory.appendingPathComponent(program).path
            _ = FileManager.default.createFile(
                atPath: file, contents: Data("#!/bin/sh\nexit 0\n".utf8), attributes: [.posixPermissions: 0o700])
        }
        return (directory, directory.path)
    }

    private let shared = BrowserNeeds(callback: .loopback(), callbackIsReceivable: true)
    private let ephemeral = BrowserNeeds(
        callback: .loopback(), prefersEphemeralSession: true, callbackIsReceivable: true)
    private let httpsCallback = BrowserNeeds(callback: .https(host: "example.com", path: "/cb"))

    @Test func aSharedLoopbackSessionUsesThePersonsBrowser() throws {
        let (directory, path) = try path(with: ["xdg-open", "chromium"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let selection = BrowserSelection(environment: ["PATH": path, "DISPLAY": ":0"])
        #expect(selection.browser(for: shared) is SystemBrowser)
    }

    @Test func sessionsThatNeedMoreGetAControlledBrowser() throws {
        let (directory, path) = try path(with: ["xdg-open", "chromium", "firefox"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let selection = BrowserSelection(environment: ["PATH": path, "DISPLAY": ":0"])
        #expect(selection.browser(for: ephemeral) is ChromiumBrowser)
        #expect(selection.browser(for: httpsCallback) is ChromiumBrowser)
        let headers = BrowserNeeds(callback: .loopback(), hasAdditionalHeaderFields: true, callbackIsReceivable: true)
        #expect(selection.browser(for: headers) is ChromiumBrowser)
    }

    @Test func firefoxWhenThereIsNoChromium() throws {
        let (directory, path) = try path(with: ["xdg-open", "firefox-esr"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let selection = BrowserSelection(environment: ["PATH": path, "DISPLAY": ":0"])
        #expect(selection.browser(for: ephemeral) is FirefoxBrowser)
    }

    @Test func withNoControlledBrowserThePersonsBrowserIsUsedAnyway() throws {
        let (directory, path) = try path(with: ["xdg-open"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let selection = BrowserSelection(environment: ["PATH": path, "DISPLAY": ":0"])
        #expect(selection.browser(for: ephemeral) is SystemBrowser)
    }

    @Test func withoutADisplayTheTerminalIsUsed() throws {
        let (directory, path) = try path(with: ["xdg-open", "chromium"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let selection = BrowserSelection(environment: ["PATH": path, "SSH_CONNECTION": "1 2 3 4"])
        #expect(selection.browser(for: shared) is TerminalPresenter)
        #expect(selection.browser(for: ephemeral) is TerminalPresenter)
    }

    /// A WSL machine with no display: WSL's variable, a Microsoft kernel.
    private struct WSLHost: HostFacts {
        var environment: [String: String]
        var kernelRelease: String? { "5.15.167.4-microsoft-standard-WSL2" }
        func fileExists(_ path: String) -> Bool { false }
    }

    @Test func inWSLTheWindowsBrowserOpensThePageNeverALinuxOne() throws {
        let (directory, path) = try path(with: ["xdg-open", "chromium", "wslview", "explorer.exe"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["PATH": path, "DISPLAY": ":0"]
        let selection = BrowserSelection(environment: environment, hostFacts: WSLHost(environment: environment))
        #expect(selection.surroundings.place == .wsl)
        #expect(selection.browser(for: shared).name == "wslview")
        #expect(!selection.fallsBackToTerminal)
        // Without wslview, explorer.exe; without either, the rules go on as elsewhere.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("wslview"))
        #expect(selection.browser(for: shared).name == "explorer.exe")
        try FileManager.default.removeItem(at: directory.appendingPathComponent("explorer.exe"))
        #expect(selection.browser(for: shared).name == "xdg-open")
        // With no display and no Windows opener, the terminal: never xdg-open into nothing.
        let headless = BrowserSelection(environment: ["PATH": path], hostFacts: WSLHost(environment: ["PATH": path]))
        #expect(headless.browser(for: shared) is TerminalPresenter)
        #expect(headless.fallsBackToTerminal)
    }

    @Test func theTerminalIsAFallbackOnlyWithoutADisplayOrABrowserVariable() throws {
        let (directory, path) = try path(with: ["xdg-open", "my-browser"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let headless = BrowserSelection(environment: ["PATH": path])
        #expect(headless.fallsBackToTerminal)
        // The name sessions report in their progress, which the command line keys its output on.
        #expect(headless.browser(for: shared).name == "terminal")
        #expect(!BrowserSelection(environment: ["PATH": path, "BROWSER": "my-browser"]).fallsBackToTerminal)
        #expect(!BrowserSelection(environment: ["PATH": path, "DISPLAY": ":0"]).fallsBackToTerminal)
        #expect(!BrowserSelection(choice: .system, environment: ["PATH": path]).fallsBackToTerminal)
        // Asked for, the terminal is a choice, not a fallback.
        let chosen = BrowserSelection(choice: .terminal, environment: ["PATH": path])
        #expect(!chosen.fallsBackToTerminal)
        #expect(chosen.browser(for: shared).name == "terminal")
    }

    @Test func choosingOnceGivesTheBrowserAndWhetherItIsTheTerminalFallback() throws {
        let (directory, path) = try path(with: ["xdg-open", "chromium"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let headless = BrowserSelection(environment: ["PATH": path]).choose(for: ephemeral)
        #expect(headless.browser is TerminalPresenter)
        #expect(headless.fallsBackToTerminal)
        let asked = BrowserSelection(choice: .terminal, environment: ["PATH": path]).choose(for: shared)
        #expect(asked.browser is TerminalPresenter)
        #expect(!asked.fallsBackToTerminal, "asked for, the terminal is a choice, not a fallback")
        let desktop = BrowserSelection(environment: ["PATH": path, "DISPLAY": ":0"]).choose(for: shared)
        #expect(!(desktop.browser is TerminalPresenter))
        #expect(!desktop.fallsBackToTerminal)
    }

    @Test func theBrowserVariableIsAnExplicitChoice() throws {
        let (directory, path) = try path(with: ["my-browser", "chromium"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let selection = BrowserSelection(environment: ["PATH": path, "BROWSER": "my-browser"])
        let browser = selection.browser(for: ephemeral)
        #expect(browser is SystemBrowser)
        #expect(browser.name == "my-browser")
    }

    @Test func explicitChoicesWin() throws {
        let environment = ["PATH": "/nonexistent", "DISPLAY": ":0"]
        #expect(BrowserSelection(choice: .chromium, environment: environment).browser(for: shared) is ChromiumBrowser)
        #expect(BrowserSelection(choice: .firefox, environment: environment).browser(for: shared) is FirefoxBrowser)
        #expect(
            BrowserSelection(choice: .terminal, environment: environment).browser(for: ephemeral) is TerminalPresenter)
        #expect(BrowserSelection(choice: .system, environment: environment).browser(for: ephemeral) is SystemBrowser)
        let fromVariable = BrowserSelection.fromEnvironment(
            ["WEBAUTH_BROWSER": "firefox", "WEBAUTH_BROWSER_ARGS": "--proxy-server=x  --y"])
        #expect(fromVariable.choice == .firefox)
        #expect(fromVariable.extraArguments == ["--proxy-server=x", "--y"])
    }

    @Test func choicesParse() {
        #expect(BrowserChoice("chromium") == .chromium)
        #expect(BrowserChoice("System") == .system)
        #expect(BrowserChoice("none") == .terminal)
        #expect(BrowserChoice("safari") == nil)
        #expect(BrowserChoice("/opt/google/chrome/google-chrome") == .executable("/opt/google/chrome/google-chrome"))
        #expect(BrowserChoice.executable("/usr/bin/chromium").description == "/usr/bin/chromium")
        let other = BrowserSelection(choice: .executable("/usr/local/bin/my-browser"), environment: [:])
        #expect(other.browser(for: shared) is SystemBrowser)
        let chrome = BrowserSelection(choice: .executable("/usr/bin/google-chrome-stable"), environment: [:])
        #expect(chrome.browser(for: shared) is ChromiumBrowser)
    }
}
