// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import Logging
public import WebAuthCore

extension FirefoxBrowser {
    /// How a ``FirefoxBrowser`` starts Firefox.
    ///
    /// ```swift
    /// var options = FirefoxBrowser.Options()
    /// options.headless = true
    /// options.extraPreferences = ["network.proxy.type": 1, "network.proxy.http": "proxy.corp", "network.proxy.http_port": 3128]
    /// let browser = FirefoxBrowser(options: options)
    /// ```
    public struct Options: Sendable {
        /// The Firefox executable: an absolute path, or a name looked up in the `PATH` of
        /// ``environment``. `nil` (the default) looks for `firefox`, then `firefox-esr`.
        public var executable: String?
        /// Whether Firefox runs without a window. `nil` (the default) runs headless exactly when
        /// ``environment`` has no display (see `DisplayEnvironment`).
        public var headless: Bool?
        /// More command-line arguments, placed before the start page. Use them for what has no
        /// preference; do not pass `--profile`, `--remote-debugging-port` or `--no-remote`, which
        /// the browser sets itself.
        public var extraArguments: [String]
        /// More preferences, written to the profile's `user.js` after (and so overriding) the
        /// browser's own, for proxies, offline tests, or re-enabling something the defaults
        /// switch off (see ``FirefoxBrowser/defaultPreferences``).
        public var extraPreferences: [String: PreferenceValue]
        /// How long Firefox may take to start and open WebDriver BiDi. Default 30 seconds.
        public var launchTimeout: Duration
        /// The environment Firefox runs with, and where `PATH`, `DISPLAY`, `WAYLAND_DISPLAY`,
        /// `XDG_DATA_HOME` (the shared profile) and `XDG_RUNTIME_DIR` (ephemeral profiles) are read.
        /// Default: this process's environment.
        public var environment: [String: String]
        /// Where the browser logs what it does (never a URL's query). By default it logs nothing.
        public var logger: Logger

        /// Called with each browser this one launches, once its page is open; for tests and
        /// benchmarks.
        package var launchObserver: (@Sendable (FirefoxPresentation) -> Void)?

        /// Creates options; every parameter has a default.
        public init(
            executable: String? = nil,
            headless: Bool? = nil,
            extraArguments: [String] = [],
            extraPreferences: [String: PreferenceValue] = [:],
            launchTimeout: Duration = .seconds(30),
            environment: [String: String] = ProcessInfo.processInfo.environment,
            logger: Logger = .webAuthSilent
        ) {
            self.executable = executable
            self.headless = headless
            self.extraArguments = extraArguments
            self.extraPreferences = extraPreferences
            self.launchTimeout = launchTimeout
            self.environment = environment
            self.logger = logger
        }

        /// Whether Firefox will run headless: ``headless``, or whether there is no display.
        public var runsHeadless: Bool {
            headless ?? !DisplayEnvironment(environment: environment).hasDisplay
        }
    }

    /// The value of a Firefox preference: a Boolean, an integer or a string, as `about:config`
    /// knows them. Literals work: `["browser.startup.page": 0, "network.proxy.http": "127.0.0.1"]`.
    public struct PreferenceValue: Sendable, Hashable, CustomStringConvertible, ExpressibleByBooleanLiteral,
        ExpressibleByIntegerLiteral, ExpressibleByStringLiteral
    {
        enum Storage: Sendable, Hashable {
            case bool(Bool)
            case integer(Int32)
            case string(String)
        }

        let storage: Storage

        /// A Boolean preference.
        public static func bool(_ value: Bool) -> PreferenceValue { PreferenceValue(storage: .bool(value)) }
        /// An integer preference. Firefox keeps integers in 32 bits.
        public static func integer(_ value: Int32) -> PreferenceValue { PreferenceValue(storage: .integer(value)) }
        /// A string preference.
        public static func string(_ value: String) -> PreferenceValue { PreferenceValue(storage: .string(value)) }

        /// A Boolean preference from a literal.
        public init(booleanLiteral value: Bool) { storage = .bool(value) }
        /// An integer preference from a literal; Firefox keeps integers in 32 bits.
        public init(integerLiteral value: Int32) { storage = .integer(value) }
        /// A string preference from a literal.
        public init(stringLiteral value: String) { storage = .string(value) }

        init(storage: Storage) { self.storage = storage }

        /// The value as written in `user.js`: `true`, `42`, `"text"` (escaped).
        public var description: String {
            switch storage {
            case .bool(let value): value ? "true" : "false"
            case .integer(let value): String(value)
            case .string(let value): Self.javaScriptString(value)
            }
        }

        /// `value` as a double-quoted JavaScript string literal that cannot end early: quotes,
        /// backslashes, line breaks and other control characters are escaped.
        static func javaScriptString(_ value: String) -> String {
            var result = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                case "\u{2028}": result += "\\u2028"
                case "\u{2029}": result += "\\u2029"
                default:
                    if scalar.value < 0x20 || scalar.value == 0x7F {
                        let hex = String(scalar.value, radix: 16)
                        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        result.unicodeScalars.append(scalar)
                    }
                }
            }
            return result + "\""
        }
    }
}

extension FirefoxBrowser.Options: ControlledBrowserOptions {}
