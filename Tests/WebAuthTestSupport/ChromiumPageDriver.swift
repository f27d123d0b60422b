// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
package import WebAuthControlledBrowsers
package import WebAuthCore
import WebAuthPlatform

/// A headless, offline Chromium for tests that act in the page a session opened: sign in, click
/// "Authorize", enter a device code.
///
/// ```swift
/// let driver = try ChromiumPageDriver()
/// defer { driver.tearDown() }
/// let session = WebAuthSession(
///     callback: .loopback(path: "/callback"), environment: driver.environment(receivers: [LoopbackReceiver()])
/// ) { redirectURI in authorizationURL(redirectURI) }
/// session.prefersEphemeralWebBrowserSession = true   // a fresh profile, deleted afterwards
/// let result = Task { try await session.authenticate().url }
/// let page = try await driver.page()
/// try await page.waitForPage(path: "/accounts/login/")
/// try await page.fill("input[name=username]", with: "alice")
/// try await page.click("#login-submit")
/// ```
///
/// The browser always runs with ``TestBrowsers/chromiumOfflineArguments`` (headless, no proxy
/// or name resolution beyond 127.0.0.1 and `localhost`), with `$XDG_RUNTIME_DIR` and
/// `$XDG_DATA_HOME` in a private temporary directory of the driver's, so neither ephemeral nor
/// shared profiles touch the user's. Each browser the sessions launch is recorded, in order.
package final class ChromiumPageDriver: Sendable {
    /// The driver's temporary directory; removed by ``tearDown()``.
    package let root: URL
    private let launched = Launched()

    /// The browsers launched, shared with the options' observer.
    private final class Launched: Sendable {
        let instances = Locked<[ChromiumInstance]>([])
    }

    /// Makes the private directories.
    ///
    /// - Throws: ``TestBrowserError`` when no Chromium is installed (tests that need one fail),
    ///   or the directories cannot be made.
    package init() throws {
        guard TestBrowsers.chromiumPath() != nil else {
            throw TestBrowserError(
                description: "no Chromium found (looked for \(TestBrowsers.chromiumNames.joined(separator: ", "))); "
                    + "install it, for example `apt-get install chromium`")
        }
        root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "webauth-page-driver-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
        for directory in [root, runtimeDirectory, dataDirectory] {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }

    /// Stands in for `$XDG_RUNTIME_DIR`, where ephemeral profiles are made.
    package var runtimeDirectory: URL { root.appendingPathComponent("runtime", isDirectory: true) }
    /// Stands in for `$XDG_DATA_HOME`, where the shared profile lives.
    package var dataDirectory: URL { root.appendingPathComponent("data", isDirectory: true) }

    /// The browser's options: headless, the offline flags and then `extraArguments`, the private
    /// directories, and an observer that records each browser launched.
    package func options(extraArguments: [String] = []) -> ChromiumBrowser.Options {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory.path
        environment["XDG_DATA_HOME"] = dataDirectory.path
        var options = ChromiumBrowser.Options(
            headless: true, extraArguments: TestBrowsers.chromiumOfflineArguments + extraArguments,
            launchTimeout: .seconds(60), environment: environment)
        let launched = launched
        options.launchObserver = { instance in launched.instances.withLock { $0.append(instance) } }
        return options
    }

    /// A Chromium made from ``options(extraArguments:)``.
    package func browser(extraArguments: [String] = []) -> ChromiumBrowser {
        ChromiumBrowser(options: options(extraArguments: extraArguments))
    }

    /// A session environment with ``browser(extraArguments:)`` and `receivers`.
    package func environment(
        receivers: [any CallbackReceiver], extraArguments: [String] = []
    ) -> SessionEnvironment {
        SessionEnvironment(browser: browser(extraArguments: extraArguments), receivers: receivers)
    }

    /// A session that shows `url` in this driver's browser — ephemeral, two minutes at most,
    /// with a loopback callback (on `loopbackReceiver`) nobody calls — for tests that drive a
    /// page (a device verification page, say) rather than wait for a callback. Cancel it when
    /// done.
    package func browsingSession(to url: URL, loopbackReceiver: any CallbackReceiver) -> WebAuthSession {
        let session = WebAuthSession(
            url: url, callback: .loopback(path: uniqueCallbackPath()),
            environment: environment(receivers: [loopbackReceiver]))
        session.prefersEphemeralWebBrowserSession = true
        session.timeout = .seconds(120)
        return session
    }

    /// The browsers launched so far, oldest first.
    package var instances: [ChromiumInstance] { launched.instances.withLock { $0 } }

    /// Waits until the `index`-th browser (0-based) has launched, and returns its page.
    package func page(_ index: Int = 0, within limit: Duration = .seconds(60)) async throws -> ChromiumPage {
        var instance: ChromiumInstance?
        _ = await eventually(within: limit) {
            instance = launched.instances.withLock { $0.count > index ? $0[index] : nil }
            return instance != nil
        }
        if let instance { return ChromiumPage(instance: instance) }
        throw PageDriverError("no Chromium was launched within \(limit)")
    }

    /// Removes the driver's directory. The browsers end with their sessions.
    package func tearDown() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// The page of a Chromium a session launched, driven with JavaScript over the session's own
/// DevTools connection. Every wait is bounded; none blocks a thread.
package struct ChromiumPage: Sendable {
    /// The browser.
    package let instance: ChromiumInstance

    /// Wraps `instance`'s page.
    package init(instance: ChromiumInstance) {
        self.instance = instance
    }

    /// Evaluates `expression` in the page: its value as text, `nil` for non-strings.
    @discardableResult
    package func evaluate(_ expression: String) async throws -> String? {
        try await instance.evaluate(expression)
    }

    /// The page's `location.href` now, if it can be read.
    package func location() async -> String? {
        try? await instance.evaluate("location.href")
    }

    /// Waits until `location.pathname` is `path` and the document has loaded
    /// (`document.readyState == 'complete'`).
    package func waitForPage(path: String, within limit: Duration = .seconds(30)) async throws {
        try await waitForPage(description: path, within: limit) { $0 == path }
    }

    /// Waits until `location.pathname` contains `fragment` and the document has loaded.
    package func waitForPage(pathContaining fragment: String, within limit: Duration = .seconds(30)) async throws {
        try await waitForPage(description: "a path containing \(fragment)", within: limit) { $0.contains(fragment) }
    }

    /// Waits until `location.pathname` satisfies `matches` and the document has loaded.
    package func waitForPage(
        description: String, within limit: Duration = .seconds(30), where matches: (String) -> Bool
    ) async throws {
        var last: String?
        let loaded = await eventually(within: limit) {
            // Fails while a navigation replaces the document; the next round asks again.
            last = try? await instance.evaluate("document.readyState + ' ' + location.pathname")
            guard let last, last.hasPrefix("complete ") else { return false }
            return matches(String(last.dropFirst("complete ".count)))
        }
        if loaded { return }
        throw PageDriverError(
            "the page did not load \(description) within \(limit) (last seen: \(last ?? "nothing"))"
                + ((try? await text(of: "body", maximumLength: 600)).map { "; page text: \($0)" } ?? ""))
    }

    /// Waits until an element matches `selector`.
    package func waitForElement(_ selector: String, within limit: Duration = .seconds(30)) async throws {
        let probe = "document.querySelector(\(Self.literal(selector))) ? 'yes' : 'no'"
        if await eventually(within: limit, { (try? await instance.evaluate(probe)) == "yes" }) { return }
        throw PageDriverError("no element matched \(selector) within \(limit) (page: \(await location() ?? "unknown"))")
    }

    /// Sets the value of the input matching `selector`, with the `input` and `change` events a
    /// person's typing would fire.
    package func fill(_ selector: String, with value: String) async throws {
        let script = """
            (() => {
                const element = document.querySelector(\(Self.literal(selector)));
                if (!element) return 'missing';
                element.focus();
                element.value = \(Self.literal(value));
                element.dispatchEvent(new Event('input', { bubbles: true }));
                element.dispatchEvent(new Event('change', { bubbles: true }));
                return 'ok';
            })()
            """
        try await expectFound(try await instance.evaluate(script), selector)
    }

    /// Clicks the element matching `selector`.
    ///
    /// The click runs just after this call is answered, so a click that navigates — or ends the
    /// session by reaching the callback, closing the browser — cannot lose the answer.
    package func click(_ selector: String) async throws {
        let script = """
            (() => {
                const element = document.querySelector(\(Self.literal(selector)));
                if (!element) return 'missing';
                setTimeout(() => element.click(), 0);
                return 'ok';
            })()
            """
        try await expectFound(try await instance.evaluate(script), selector)
    }

    /// Submits the form matching `selector` as its first submit button would (`requestSubmit()`),
    /// just after this call is answered.
    package func submit(form selector: String) async throws {
        let script = """
            (() => {
                const form = document.querySelector(\(Self.literal(selector)));
                if (!form) return 'missing';
                setTimeout(() => form.requestSubmit(), 0);
                return 'ok';
            })()
            """
        try await expectFound(try await instance.evaluate(script), selector)
    }

    /// The `innerText` of the element matching `selector` (`nil` when none does), cut to
    /// `maximumLength` characters.
    package func text(of selector: String, maximumLength: Int = 10_000) async throws -> String? {
        let value = try await instance.evaluate(
            "(() => { const e = document.querySelector(\(Self.literal(selector))); "
                + "return e ? String(e.innerText) : undefined; })()")
        return value.map { String($0.prefix(maximumLength)) }
    }

    private func expectFound(_ answer: String?, _ selector: String) async throws {
        guard answer == "ok" else {
            throw PageDriverError("no element matches \(selector) (page: \(await location() ?? "unknown"))")
        }
    }

    /// `value` as a JavaScript string literal.
    package static func literal(_ value: String) -> String {
        var literal = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\r": literal += "\\r"
            case "\t": literal += "\\t"
            case "<": literal += "\\u003C"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                literal += String(format: "\\u%04X", scalar.value)
            default: literal.unicodeScalars.append(scalar)
            }
        }
        return literal + "\""
    }
}

/// A page could not be driven where a test wanted.
package struct PageDriverError: Error, CustomStringConvertible {
    /// What went wrong.
    package var description: String

    /// Creates an error saying `description`.
    package init(_ description: String) { self.description = description }
}
