// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore

@testable import WebAuthControlledBrowsers

#if canImport(Glibc)
    import Glibc
#endif

/// The pure parts of the Chromium browser, with no browser running.
@Suite("Chromium logic")
struct ChromiumLogicTests {
    // MARK: - Framing and messages

    @Test func theFramerSplitsAtNULBytesAcrossReads() {
        var framer = DevToolsMessageFramer()
        #expect(framer.append(Array(#"{"id":1}"#.utf8)).isEmpty)
        let messages = framer.append([0] + Array(#"{"id":2}"#.utf8) + [0] + Array(#"{"id""#.utf8))
        #expect(messages.map { String(decoding: $0, as: UTF8.self) } == [#"{"id":1}"#, #"{"id":2}"#])
        let rest = framer.append(Array(#":3}"#.utf8) + [0, 0])
        #expect(rest.map { String(decoding: $0, as: UTF8.self) } == [#"{"id":3}"#])
        #expect(!framer.overflowed)
    }

    @Test func repliesErrorsAndEventsAreTold() throws {
        let reply = DevToolsMessage.parse(Data(#"{"id":7,"result":{"product":"Chrome/156"}}"#.utf8))
        #expect(reply == .reply(id: 7, .success(["product": "Chrome/156"])))
        let error = DevToolsMessage.parse(Data(#"{"id":8,"error":{"code":-32000,"message":"No target"}}"#.utf8))
        #expect(error == .reply(id: 8, .failure(.commandFailed(code: -32000, message: "No target"))))
        let event = DevToolsMessage.parse(
            Data(#"{"method":"Target.targetDestroyed","params":{"targetId":"T"},"sessionId":"S"}"#.utf8))
        #expect(
            event == .event(DevToolsEvent(method: "Target.targetDestroyed", params: ["targetId": "T"], sessionID: "S")))
        #expect(DevToolsMessage.parse(Data("not json".utf8)) == nil)
    }

    @Test func commandsAreJSONWithTheirSession() throws {
        let data = DevToolsMessage.command(
            id: 3, method: "Fetch.failRequest", params: ["requestId": "r", "errorReason": "Aborted"], sessionID: "S")
        let value = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(value["id"]?.intValue == 3)
        #expect(value["method"]?.stringValue == "Fetch.failRequest")
        #expect(value["params"]?["errorReason"]?.stringValue == "Aborted")
        #expect(value["sessionId"]?.stringValue == "S")
        #expect(!data.contains(0))
        let browserCommand = DevToolsMessage.command(id: 4, method: "Browser.close", params: [:], sessionID: nil)
        #expect(try JSONDecoder().decode(JSONValue.self, from: browserCommand)["sessionId"] == nil)
    }

    // MARK: - The navigation watcher

    private static let authorization = URL(string: "https://auth.example/authorize?state=s")!

    private func watcher(_ callback: Callback, headers: [String: String] = [:]) -> ChromiumNavigationInterceptor {
        ChromiumNavigationInterceptor(
            callback: callback, mainFrameID: "MAIN", authorizationURL: Self.authorization,
            additionalHeaderFields: headers)
    }

    private func request(
        _ url: String, frame: String = "MAIN", type: String = "Document", status: Int? = nil, location: String? = nil
    ) -> ChromiumNavigationInterceptor.PausedRequest {
        ChromiumNavigationInterceptor.PausedRequest(
            url: url, frameID: frame, resourceType: type, headers: ["User-Agent": "Chrome", "Accept": "*/*"],
            response: status.map { status in
                .init(status: status, headers: location.map { [.init(name: "Location", value: $0)] } ?? [])
            })
    }

    @Test func extraHeadersGoOnTheFirstTopLevelRequestOnly() {
        var watcher = watcher(.customScheme("com.example.app"), headers: ["X-Test": "1", "accept": "text/html"])
        #expect(watcher.decide(request(Self.authorization.absoluteString, type: "Image")) == .continueRequest)
        #expect(watcher.decide(request(Self.authorization.absoluteString, frame: "CHILD")) == .continueRequest)
        #expect(watcher.headersPending)
        let first = watcher.decide(request(Self.authorization.absoluteString))
        #expect(
            first
                == .continueRequestWithHeaders([
                    .init(name: "accept", value: "text/html"), .init(name: "User-Agent", value: "Chrome"),
                    .init(name: "X-Test", value: "1"),
                ]))
        #expect(!watcher.headersPending)
        #expect(watcher.decide(request("https://auth.example/next")) == .continueRequest)
    }

    @Test func extraHeadersAreNotSentToAnotherOrigin() {
        var watcher = watcher(.customScheme("com.example.app"), headers: ["X-Test": "1"])
        #expect(watcher.decide(request("https://elsewhere.example/authorize")) == .continueRequest)
        #expect(!watcher.headersPending, "and not kept for a later request either")
        #expect(watcher.decide(request(Self.authorization.absoluteString)) == .continueRequest)
    }

    @Test func aRedirectToTheCallbackIsStoppedAtTheResponse() {
        var watcher = watcher(.customScheme("com.example.app"))
        let stop = watcher.decide(
            request("https://auth.example/authorize", status: 302, location: "com.example.app:/cb?code=1"))
        #expect(stop == .stop(callback: URL(string: "com.example.app:/cb?code=1")!))
        #expect(watcher.decide(request("https://auth.example/a", status: 302, location: "/login")) == .continueResponse)
        let inFrame = watcher.decide(
            request("https://auth.example/a", frame: "CHILD", status: 302, location: "com.example.app:/x"))
        #expect(inFrame == .continueResponse, "an iframe is not the page")
        #expect(watcher.decide(request("https://auth.example/a", status: 200)) == .continueResponse)
    }

    @Test func aRelativeLocationIsResolvedAgainstTheRequest() {
        var watcher = watcher(.https(host: "app.example", path: "/oauth"))
        let stop = watcher.decide(request("https://app.example/start", status: 303, location: "/oauth/done?code=2"))
        #expect(stop == .stop(callback: URL(string: "https://app.example/oauth/done?code=2")!))
    }

    @Test func anHTTPSCallbackIsStoppedAtTheRequestAndOtherPathsGoOn() {
        var watcher = watcher(.https(host: "app.example", path: "/oauth"))
        #expect(
            watcher.decide(request("https://app.example/oauth?code=3"))
                == .stop(callback: URL(string: "https://app.example/oauth?code=3")!))
        #expect(watcher.decide(request("https://app.example/oauthx?code=3")) == .continueRequest)
        #expect(watcher.decide(request("https://app.example/help")) == .continueRequest)
        #expect(watcher.decide(request("https://app.example/oauth", frame: "CHILD")) == .continueRequest)
    }

    @Test func pageInitiatedNavigationsToACustomSchemeAreReportedOnce() {
        var watcher = watcher(.customScheme("com.example.app"))
        #expect(watcher.navigationStarted(frameID: "CHILD", url: "com.example.app:/cb") == nil)
        #expect(watcher.navigationStarted(frameID: "MAIN", url: "other.app:/cb") == nil)
        #expect(watcher.navigationStarted(frameID: "MAIN", url: "https://auth.example/") == nil)
        #expect(watcher.navigationStarted(frameID: "MAIN", url: "COM.EXAMPLE.APP:/cb?x=1") != nil)
        #expect(watcher.navigationStarted(frameID: "MAIN", url: "COM.EXAMPLE.APP:/cb?x=1") == nil, "reported once")
        #expect(watcher.navigationStarted(frameID: "MAIN", url: "com.example.app:/other") != nil, "any path")
    }

    // MARK: - Launching

    @Test func theCommandLineHasOurFlagsThenTheCallersThenTheBlankPage() {
        let profile = URL(fileURLWithPath: "/tmp/profile")
        let headless = ChromiumLauncher.arguments(
            profile: profile, headless: true, runningAsRoot: false, extra: ["--proxy-server=x"])
        #expect(
            headless == [
                "--remote-debugging-pipe", "--user-data-dir=/tmp/profile", "--no-first-run",
                "--no-default-browser-check", "--headless=new", "--proxy-server=x", "about:blank",
            ])
        let headed = ChromiumLauncher.arguments(profile: profile, headless: false, runningAsRoot: true, extra: [])
        #expect(headed.contains("--no-sandbox"))
        #expect(!headed.contains { $0.hasPrefix("--headless") })
        #expect(!headless.contains("--no-sandbox"))
        #expect(!(headless + headed).contains { $0.contains("remote-debugging-port") })
    }

    @Test func headlessFollowsTheDisplayUnlessSet() {
        #expect(ChromiumBrowser.Options(environment: [:]).runsHeadless)
        #expect(!ChromiumBrowser.Options(environment: ["DISPLAY": ":0"]).runsHeadless)
        #expect(!ChromiumBrowser.Options(environment: ["WAYLAND_DISPLAY": "wayland-0"]).runsHeadless)
        #expect(ChromiumBrowser.Options(environment: ["DISPLAY": ""]).runsHeadless)
        #expect(ChromiumBrowser.Options(headless: true, environment: ["DISPLAY": ":0"]).runsHeadless)
        #expect(!ChromiumBrowser.Options(headless: false, environment: [:]).runsHeadless)
    }

    @Test func findLooksForTheKnownNamesInOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-find-\(UUID())")
        let other = directory.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(ChromiumBrowser.find(searchPath: directory.path) == nil)

        let chrome = other.appendingPathComponent("google-chrome-stable").path
        #expect(FileManager.default.createFile(atPath: chrome, contents: Data("#!/bin/sh\n".utf8)))
        #expect(ChromiumBrowser.find(searchPath: "\(directory.path):\(other.path)") == nil, "not executable yet")
        chmod(chrome, 0o755)
        #expect(ChromiumBrowser.find(searchPath: "\(directory.path):\(other.path)") == chrome)

        let chromium = directory.appendingPathComponent("chromium").path
        #expect(FileManager.default.createFile(atPath: chromium, contents: Data("#!/bin/sh\n".utf8)))
        chmod(chromium, 0o755)
        #expect(ChromiumBrowser.find(searchPath: "\(other.path):\(directory.path)") == chromium, "chromium first")
        #expect(ChromiumBrowser(options: .init(environment: ["PATH": directory.path])).name == "chromium")
    }

    @Test func theCapabilitiesAreAllButPasting() {
        let capabilities = ChromiumBrowser().capabilities
        #expect(
            capabilities == [
                .ephemeralSessions, .additionalHeaderFields, .callbackInterception, .dismissal, .closeDetection,
            ])
        #expect(!capabilities.contains(.pastedCallback))
    }

    @Test func networkPredictionIsTurnedOffKeepingOtherPreferences() throws {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-prefs-\(UUID())")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        let file = profile.appendingPathComponent("Default/Preferences")

        #expect(ChromiumProfileSetup.apply(to: profile))
        let fresh = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        #expect((fresh?["net"] as? [String: Any])?["network_prediction_options"] as? Int == 2)
        var status = stat()
        #expect(stat(file.path, &status) == 0 && status.st_mode & 0o777 == 0o600)

        // A shared profile's own settings stay.
        try Data(#"{"net":{"network_prediction_options":0,"other":true},"profile":{"name":"Me"}}"#.utf8).write(to: file)
        #expect(ChromiumProfileSetup.apply(to: profile))
        let merged = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        #expect((merged?["net"] as? [String: Any])?["network_prediction_options"] as? Int == 2)
        #expect((merged?["net"] as? [String: Any])?["other"] as? Bool == true)
        #expect((merged?["profile"] as? [String: Any])?["name"] as? String == "Me")

        try Data("not json".utf8).write(to: file)
        #expect(!ChromiumProfileSetup.apply(to: profile), "a file it cannot read is left alone")
        #expect(try String(contentsOf: file, encoding: .utf8) == "not json")
    }

    // MARK: - The shared profile's lock

    @Test func aChromiumRunningOnTheProfileIsSeenAndAStaleLockIsNot() throws {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-singleton-\(UUID())")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let link = profile.appendingPathComponent("SingletonLock").path

        symlink("\(host)-\(getpid())", link)  // a live process
        #expect(ChromiumProfileSetup.runningBrowser(in: profile) != nil)
        let error = #expect(throws: WebAuthenticationSessionError.self) {
            try SharedProfileLock.acquire(profile: profile, runningBrowser: ChromiumProfileSetup.runningBrowser(in:))
        }
        #expect(error?.code == .browserLaunchFailed)
        #expect(error?.message.contains("in use") == true)

        unlink(link)
        symlink("\(host)-999999999", link)  // no such process: stale, Chromium takes it over
        #expect(ChromiumProfileSetup.runningBrowser(in: profile) == nil)
        try SharedProfileLock.acquire(profile: profile, runningBrowser: ChromiumProfileSetup.runningBrowser(in:))
            .release()
    }
}
