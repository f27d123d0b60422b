// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    public import Foundation
    import WebAuth

    /// The session engine's callback type, named apart from ``ASWebAuthenticationSession/Callback``.
    typealias EngineCallback = Callback

    extension ASWebAuthenticationSession {
        /// Where the session expects the authentication service to send the browser at the end:
        /// a custom scheme or an `https` address (Apple: iOS 17.4, macOS 14.4).
        ///
        /// ```swift
        /// let session = ASWebAuthenticationSession(
        ///     url: authURL, callback: .https(host: "example.com", path: "/oauth/done")
        /// ) { callbackURL, error in … }
        /// ```
        ///
        /// Matching follows the Linux session's rules: the scheme is compared case-insensitively;
        /// an `https` callback needs the host (no other port, no user information) and a path that
        /// equals the callback's path or continues it after a `/`.
        public final class Callback: NSObject, Sendable {
            /// The scheme as given to ``customScheme(_:)``, checked when the session starts.
            let givenScheme: String?
            /// The engine's callback.
            let engineCallback: EngineCallback

            private init(givenScheme: String?, engineCallback: EngineCallback) {
                self.givenScheme = givenScheme
                self.engineCallback = engineCallback
                super.init()
            }

            /// The engine's `callback`, as handed to a browser app in a request.
            static func wrapping(_ engineCallback: EngineCallback) -> Callback {
                Callback(givenScheme: nil, engineCallback: engineCallback)
            }

            /// A callback to `customScheme:` URLs. An invalid scheme name makes `start()` fail.
            public static func customScheme(_ customScheme: String) -> Callback {
                Callback(givenScheme: customScheme, engineCallback: .customScheme(customScheme))
            }

            /// A callback to `https://host/path…` URLs.
            public static func https(host: String, path: String) -> Callback {
                Callback(givenScheme: nil, engineCallback: .https(host: host, path: path))
            }

            /// Whether `url` is this callback.
            public func matchesURL(_ url: URL) -> Bool {
                engineCallback.matchesURL(url)
            }

            /// Callbacks are equal when they match the same URLs.
            public override func isEqual(_ object: Any?) -> Bool {
                (object as? Callback)?.engineCallback == engineCallback
            }

            /// The hash of what the callback matches.
            public override var hash: Int { engineCallback.hashValue }

            /// Such as `com.example.app:` or `https://example.com/oauth`.
            public override var description: String { engineCallback.description }
        }
    }
#endif
