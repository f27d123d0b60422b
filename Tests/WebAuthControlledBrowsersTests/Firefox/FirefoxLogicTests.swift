// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore

@testable import WebAuthControlledBrowsers

#if canImport(Glibc)
    import Glibc
#endif

/// The Firefox browser's pure parts, driven without a browser: the interception rules with
/// events shaped like Firefox's, the preferences file, the endpoint line, the profile files.
@Suite("Firefox logic")
struct FirefoxLogicTests {
    static let context = "tab-1"
    static let prefix = FirefoxProfileSetup.schemeHandlerPrefix(token: "0123456789abcdef")

    static func interceptor(
        _ callback: Callback, headers: [String: String] = [:]
    ) -> FirefoxNavigationInterceptor {
        FirefoxNavigationInterceptor(
            callback: callback, context: context, additionalHeaderFields: headers, schemeHandlerPrefix: prefix)
    }

    static func requestEvent(
        _ url: String, context: String = context, navigation: JSONValue = "nav-1", blocked: Bool = true,
        headers: [JSONValue] = [["name": "Host", "value": ["type": "string", "value": "127.0.0.1"]]]
    ) -> BiDiConnection.Event {
        BiDiConnection.Event(
            method: "network.beforeRequestSent",
            params: [
                "context": .string(context), "navigation": navigation, "isBlocked": .bool(blocked),
                "request": ["request": "r-1", "url": .string(url), "headers": .array(headers)],
            ])
    }

    static func responseEvent(
        _ url: String, status: Int, location: String?, context: String = context, navigation: JSONValue = "nav-1"
    ) -> BiDiConnection.Event {
        let headers: [JSONValue] =
            location.map { [["name": "Location", "value": ["type": "string", "value": .string($0)]]] } ?? []
        return BiDiConnection.Event(
            method: "network.responseStarted",
            params: [
                "context": .string(context), "navigation": navigation, "isBlocked": true,
                "request": ["request": "r-2", "url": .string(url)],
                "response": ["status": .number(Double(status)), "headers": .array(headers)],
            ])
    }

    // MARK: - Interception rules

    @Test func aRedirectToTheCustomSchemeIsReportedAndReleasedSoItsCookiesAreKept() {
        var interceptor = Self.interceptor(.customScheme("com.example.app"))
        let reaction = interceptor.react(
            to: Self.responseEvent("http://127.0.0.1:1/authorize", status: 302, location: "com.example.app:/cb?code=1"))
        #expect(reaction.command?.method == "network.continueResponse")
        #expect(reaction.command?.params["request"] == "r-2")
        #expect(reaction.event == .callback(URL(string: "com.example.app:/cb?code=1")!))
    }

    @Test func aRedirectIsReportedOnceAndWhatFollowsItIsStopped() {
        var interceptor = Self.interceptor(.customScheme("com.example.app"))
        let response = interceptor.react(
            to: Self.responseEvent("http://127.0.0.1:1/authorize", status: 302, location: "com.example.app:/cb?code=1"))
        #expect(response.event != nil)
        let handler = interceptor.react(
            to: Self.requestEvent("\(Self.prefix)?url=com.example.app%3A%2Fcb%3Fcode%3D1"))
        #expect(handler.command?.method == "network.failRequest")
        #expect(handler.event == nil, "the same URL is not reported twice")

        var https = Self.interceptor(.https(host: "callback.example", path: "/cb"))
        _ = https.react(
            to: Self.responseEvent("http://127.0.0.1:1/a", status: 302, location: "https://callback.example/cb?c=1"))
        let follow = https.react(to: Self.requestEvent("https://callback.example/cb?c=1"))
        #expect(follow.command?.method == "network.failRequest")
        #expect(follow.event == nil)
    }

    @Test func aRelativeRedirectIsResolvedBeforeMatching() {
        var interceptor = Self.interceptor(.https(host: "app.example", path: "/cb"))
        let reaction = interceptor.react(
            to: Self.responseEvent("https://app.example/start", status: 303, location: "/cb?code=2"))
        #expect(reaction.event == .callback(URL(string: "https://app.example/cb?code=2")!))
        #expect(reaction.command?.method == "network.continueResponse")
    }

    @Test func otherResponsesAreReleased() {
        var interceptor = Self.interceptor(.customScheme("com.example.app"))
        let ok = interceptor.react(to: Self.responseEvent("http://127.0.0.1:1/page", status: 200, location: nil))
        #expect(ok.command?.method == "network.continueResponse")
        #expect(ok.event == nil)
        let elsewhere = interceptor.react(
            to: Self.responseEvent("http://127.0.0.1:1/a", status: 302, location: "other.scheme:/cb"))
        #expect(elsewhere.command?.method == "network.continueResponse")
        #expect(elsewhere.event == nil)
    }

    @Test func anHTTPSCallbackRequestIsFailedBeforeItIsSent() {
        var interceptor = Self.interceptor(.https(host: "callback.example", path: "/cb"))
        let reaction = interceptor.react(to: Self.requestEvent("https://callback.example/cb/done?code=3"))
        #expect(reaction.command?.method == "network.failRequest")
        #expect(reaction.event == .callback(URL(string: "https://callback.example/cb/done?code=3")!))
    }

    @Test func anHTTPSURLOnAnotherPathOrHostIsLetThrough() {
        var interceptor = Self.interceptor(.https(host: "callback.example", path: "/cb"))
        for url in ["https://callback.example/cbx", "https://callback.example:8443/cb", "http://callback.example/cb"] {
            let reaction = interceptor.react(to: Self.requestEvent(url, navigation: .null))
            #expect(reaction.command?.method == "network.continueRequest", "\(url)")
            #expect(reaction.event == nil, "\(url)")
        }
    }

    @Test func onlyTopLevelNavigationsOfTheSessionsTabComplete() {
        var interceptor = Self.interceptor(.https(host: "callback.example", path: "/cb"))
        let frame = interceptor.react(to: Self.requestEvent("https://callback.example/cb?code=f", context: "frame-9"))
        #expect(frame.command?.method == "network.failRequest", "stopped, so it never reaches the host")
        #expect(frame.event == nil, "but not reported")
        let fetch = interceptor.react(to: Self.requestEvent("https://callback.example/cb?code=x", navigation: .null))
        #expect(fetch.command?.method == "network.failRequest")
        #expect(fetch.event == nil)
        let redirectInFrame = interceptor.react(
            to: Self.responseEvent(
                "https://a.example/", status: 302, location: "https://callback.example/cb", context: "frame-9"))
        #expect(redirectInFrame.event == nil, "its follow-up request is stopped by the request rule")
    }

    @Test func theSchemeHandlerAddressCarriesTheCustomSchemeURL() {
        var interceptor = Self.interceptor(.customScheme("com.example.app"))
        let encoded = "com.example.app%3A%2Fcb%3Fcode%3D4%26state%3Da%2520b"
        let reaction = interceptor.react(to: Self.requestEvent("\(Self.prefix)?url=\(encoded)"))
        #expect(reaction.command?.method == "network.failRequest")
        #expect(reaction.event == .callback(URL(string: "com.example.app:/cb?code=4&state=a%20b")!))

        let otherTab = interceptor.react(to: Self.requestEvent("\(Self.prefix)?url=\(encoded)", context: "tab-2"))
        #expect(otherTab.command?.method == "network.failRequest")
        #expect(otherTab.event == nil)
    }

    @Test func aForgedSchemeHandlerAddressIsStoppedButNotBelieved() {
        var interceptor = Self.interceptor(.customScheme("com.example.app"))
        let forged = "https://\(FirefoxProfileSetup.schemeHandlerHost)/guessed-token?url=com.example.app%3A%2Fcb"
        let reaction = interceptor.react(to: Self.requestEvent(forged))
        #expect(reaction.command?.method == "network.failRequest")
        #expect(reaction.event == nil)
    }

    @Test func headersAreAddedToTheFirstNavigationRequestOnly() throws {
        var interceptor = Self.interceptor(.customScheme("com.example.app"), headers: ["X-Test": "1", "host": "evil"])
        let first = interceptor.react(to: Self.requestEvent("http://127.0.0.1:1/authorize"))
        #expect(first.command?.method == "network.continueRequest")
        let headers = try #require(first.command?.params["headers"]?.arrayValue)
        let names = headers.compactMap { $0["name"]?.stringValue }
        #expect(names == ["X-Test", "host"], "same-named headers are replaced, not doubled")
        #expect(headers.last?["value"]?["value"] == "evil")

        let second = interceptor.react(to: Self.requestEvent("http://127.0.0.1:1/authorize?again"))
        #expect(second.command?.method == "network.continueRequest")
        #expect(second.command?.params["headers"] == nil)
    }

    @Test func subresourceRequestsDoNotTakeTheHeaders() {
        var interceptor = Self.interceptor(.customScheme("com.example.app"), headers: ["X-Test": "1"])
        let image = interceptor.react(to: Self.requestEvent("http://127.0.0.1:1/favicon.ico", navigation: .null))
        #expect(image.command?.params["headers"] == nil)
        let page = interceptor.react(to: Self.requestEvent("http://127.0.0.1:1/authorize"))
        #expect(page.command?.params["headers"] != nil)
    }

    @Test func requestsThatAreNotBlockedNeedNoCommand() {
        var interceptor = Self.interceptor(.https(host: "callback.example", path: "/cb"))
        let reaction = interceptor.react(to: Self.requestEvent("https://callback.example/cb", blocked: false))
        #expect(reaction.command == nil)
        #expect(reaction.event == nil)
    }

    @Test func theSessionsTabClosingIsTheUserCancelling() {
        var interceptor = Self.interceptor(.customScheme("com.example.app"))
        let other = interceptor.react(
            to: BiDiConnection.Event(method: "browsingContext.contextDestroyed", params: ["context": "tab-2"]))
        #expect(other.event == nil)
        let ours = interceptor.react(
            to: BiDiConnection.Event(
                method: "browsingContext.contextDestroyed", params: ["context": .string(Self.context)]))
        #expect(ours.event == .closedByUser)
    }

    @Test func theFirstNavigationIsMarked() {
        var interceptor = Self.interceptor(.customScheme("com.example.app"))
        let event = BiDiConnection.Event(
            method: "browsingContext.navigationStarted", params: ["context": .string(Self.context), "url": "http://a/"])
        #expect(interceptor.react(to: event).isFirstNavigation)
        #expect(!interceptor.react(to: event).isFirstNavigation)
    }

    @Test func loopbackCallbacksAreLeftToTheListener() {
        var interceptor = Self.interceptor(.loopback(path: "/callback", port: 4000))
        let reaction = interceptor.react(to: Self.requestEvent("http://127.0.0.1:4000/callback?code=5"))
        #expect(reaction.command?.method == "network.continueRequest")
        #expect(reaction.event == nil)
    }

    // MARK: - Preferences and profile files

    @Test func userJSHasOneLinePerPreferenceEscaped() {
        let text = FirefoxProfileSetup.userPreferencesFile([
            "b.int": 42, "a.bool": false, "c.string": "say \"hi\"\\\n</script>", "d.negative": .integer(-1),
        ])
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("//") }
        #expect(
            lines == [
                #"user_pref("a.bool", false);"#,
                #"user_pref("b.int", 42);"#,
                #"user_pref("c.string", "say \"hi\"\\\n</script>");"#,
                #"user_pref("d.negative", -1);"#,
            ])
    }

    @Test func controlCharactersCannotEndAPreferenceEarly() {
        #expect(FirefoxBrowser.PreferenceValue.javaScriptString("a\u{0}b\u{2028}") == #""a\u0000b\u2028""#)
    }

    @Test func theDefaultsSwitchOffPhoningHomeAndTheTestAutomationPreferences() {
        let defaults = FirefoxBrowser.defaultPreferences
        #expect(defaults["toolkit.telemetry.enabled"] == false)
        #expect(defaults["app.update.auto"] == false)
        #expect(defaults["network.captive-portal-service.enabled"] == false)
        #expect(defaults["network.connectivity-service.enabled"] == false)
        #expect(defaults["browser.safebrowsing.downloads.remote.enabled"] == false)
        #expect(defaults["browser.shell.checkDefaultBrowser"] == false)
        #expect(defaults["remote.active-protocols"] == 1)
        #expect(defaults["remote.prefs.recommended"] == false)
        #expect(defaults.keys.allSatisfy { !$0.hasPrefix("network.proxy.") }, "no network blocking by default")
    }

    @Test func theEndpointLineIsParsed() {
        let output = "*** You are running in headless mode.\nWebDriver BiDi listening on ws://127.0.0.1:40243\n"
        #expect(BiDiEndpoint.parse(output)?.host == "127.0.0.1")
        #expect(BiDiEndpoint.parse(output)?.port == 40243)
        #expect(BiDiEndpoint.parse("WebDriver BiDi listening on ws://localhost:9222")?.host == "127.0.0.1")
        #expect(BiDiEndpoint.parse("WebDriver BiDi listening on ws://[::1]:9222")?.host == "::1")
        #expect(BiDiEndpoint.parse("WebDriver BiDi listening on ws://10.0.0.1:9222") == nil)
        #expect(BiDiEndpoint.parse("WebDriver BiDi listening on ws://127.0.0.1:") == nil)
        #expect(BiDiEndpoint.parse("DevTools listening on ws://127.0.0.1:9222") == nil)
    }

    @Test func argumentsPutTheStartPageLast() {
        let profile = URL(fileURLWithPath: "/tmp/p")
        #expect(
            FirefoxLauncher.arguments(profile: profile, headless: true, extra: ["--kiosk"]) == [
                "--profile", "/tmp/p", "--no-remote", "--remote-debugging-port=0", "--headless", "--kiosk",
                "about:blank",
            ])
        #expect(!FirefoxLauncher.arguments(profile: profile, headless: false, extra: []).contains("--headless"))
    }

    @Test func headlessDependsOnADisplayUnlessSet() {
        #expect(FirefoxBrowser.Options(environment: [:]).runsHeadless)
        #expect(!FirefoxBrowser.Options(environment: ["DISPLAY": ":0"]).runsHeadless)
        #expect(!FirefoxBrowser.Options(environment: ["WAYLAND_DISPLAY": "wayland-0"]).runsHeadless)
        #expect(FirefoxBrowser.Options(headless: true, environment: ["DISPLAY": ":0"]).runsHeadless)
    }

    @Test func handlersJSONRoutesTheSchemeAndKeepsOtherEntries() {
        let existing: JSONValue = [
            "defaultHandlersVersion": [:], "mimeTypes": ["application/pdf": ["action": 3]],
            "schemes": ["mailto": ["stubEntry": true]],
        ]
        let updated = FirefoxProfileSetup.handlers(existing, routing: "com.example.app", to: Self.prefix)
        #expect(updated["mimeTypes"] == existing["mimeTypes"])
        #expect(updated["schemes"]?["mailto"] == ["stubEntry": true])
        #expect(updated["schemes"]?["com.example.app"]?["action"] == 2)
        #expect(updated["schemes"]?["com.example.app"]?["ask"] == nil)
        #expect(
            updated["schemes"]?["com.example.app"]?["handlers"]?.arrayValue?.first?["uriTemplate"]
                == .string(Self.prefix + "?url=%s"))
        let fresh = FirefoxProfileSetup.handlers(nil, routing: "x-app", to: Self.prefix)
        #expect(fresh["schemes"]?["x-app"]?["action"] == 2)
    }

    @Test func aLiveLockLinkMeansTheProfileIsInUse() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ff-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(FirefoxProfileSetup.lockHolder(in: directory) == nil)
        let link = directory.appendingPathComponent("lock").path
        #expect(symlink("127.0.0.1:+\(getpid())", link) == 0)
        #expect(FirefoxProfileSetup.lockHolder(in: directory) == getpid())
        #expect(FirefoxProfileSetup.runningBrowser(in: directory) == "another Firefox (process \(getpid()))")
        let error = #expect(throws: WebAuthenticationSessionError.self) {
            try SharedProfileLock.acquire(profile: directory, runningBrowser: FirefoxProfileSetup.runningBrowser(in:))
        }
        #expect(error?.message.contains("in use by another Firefox") == true)
        unlink(link)
        // A lock left by a process that no longer exists is stale (Firefox takes it over).
        #expect(symlink("127.0.0.1:+2147483000", link) == 0)
        #expect(FirefoxProfileSetup.lockHolder(in: directory) == nil)
    }

    @Test func anUnlockedParentLockFileOutranksTheLink() throws {
        // The kernel drops an fcntl lock when its holder dies; a link's pid may have been reused.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ff-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(symlink("127.0.0.1:+\(getpid())", directory.appendingPathComponent("lock").path) == 0)
        _ = FileManager.default.createFile(
            atPath: directory.appendingPathComponent(".parentlock").path, contents: Data())
        #expect(FirefoxProfileSetup.lockHolder(in: directory) == nil)
    }

    @Test func findLooksForFirefoxThenFirefoxESR() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ff-path-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(FirefoxBrowser.find(searchPath: directory.path) == nil)
        let esr = directory.appendingPathComponent("firefox-esr")
        _ = FileManager.default.createFile(atPath: esr.path, contents: Data(), attributes: [.posixPermissions: 0o755])
        #expect(FirefoxBrowser.find(searchPath: "/nonexistent:\(directory.path)") == esr.path)
        let plain = directory.appendingPathComponent("firefox")
        _ = FileManager.default.createFile(atPath: plain.path, contents: Data(), attributes: [.posixPermissions: 0o755])
        #expect(FirefoxBrowser.find(searchPath: directory.path) == plain.path)
    }

    @Test func headerFieldsNeedFirefox128() {
        #expect(BiDiSessionSetup.headerSupportProblem(browserVersion: "115.18.0esr")?.contains("128") == true)
        #expect(BiDiSessionSetup.headerSupportProblem(browserVersion: "127.0") != nil)
        #expect(BiDiSessionSetup.headerSupportProblem(browserVersion: "128.0.3") == nil)
        #expect(BiDiSessionSetup.headerSupportProblem(browserVersion: "153.7.0") == nil)
        #expect(BiDiSessionSetup.headerSupportProblem(browserVersion: "unknown") == nil)
    }

    @Test func jsonValuesRoundTrip() throws {
        let value: JSONValue = ["id": 7, "params": ["a": [true, .null, "x", .number(1.5)]], "method": "m"]
        #expect(JSONValue.parse(value.serialized) == value)
        #expect(String(decoding: JSONValue.number(42).serialized, as: UTF8.self) == "42")
    }
}
