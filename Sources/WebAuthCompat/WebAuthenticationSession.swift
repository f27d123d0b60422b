// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    public import Foundation
    import WebAuth
    import WebAuthPlatform

    // swift-format-ignore: UseSynthesizedInitializer
    // (the explicit initializer is `nonisolated`; the synthesized one would be isolated)
    /// SwiftUI's web authentication session (iOS 16.4, macOS 13.3), with its names and
    /// signatures, on Linux: an `async` front to ``ASWebAuthenticationSession``.
    ///
    /// Views reach it through the environment, exactly as with SwiftUI:
    ///
    /// ```swift
    /// import WebAuthCompat   // on Apple platforms: import SwiftUI and AuthenticationServices
    ///
    /// struct SignInView {
    ///     @Environment(\.webAuthenticationSession) private var webAuthenticationSession
    ///
    ///     func signIn() async throws -> URL {
    ///         try await webAuthenticationSession.authenticate(
    ///             using: URL(string: "https://example.com/auth")!,
    ///             callback: .customScheme("exampleauth"),
    ///             preferredBrowserSession: .ephemeral,
    ///             additionalHeaderFields: [:])
    ///     }
    /// }
    /// ```
    ///
    /// Each call runs one ``ASWebAuthenticationSession`` with the default ``ASPresentationAnchor``
    /// (the standard browser selection, or the browser of ``ASWebAuthenticationSession/environment``
    /// when the calling task binds one), so everything that type documents holds here too:
    /// callback matching, header fields, and errors as ``ASWebAuthenticationSessionError`` with
    /// Apple's domain and codes. Cancelling the calling task cancels the session, which then
    /// throws ``ASWebAuthenticationSessionError/Code/canceledLogin``.
    ///
    /// The result is handed back on the main queue whenever something drains it (see
    /// ``MainThreadDelivery``); the caller, isolated to the main actor, resumes there in any
    /// case.
    ///
    /// The package's own session class is `WebAuthSession` (module WebAuthCore); its former
    /// name is this type's, which is why a file may import both WebAuth and WebAuthCompat.
    @MainActor
    public struct WebAuthenticationSession {
        /// The session the environment hands out. It holds nothing: each call is a session of its
        /// own. Not isolated, so that `EnvironmentValues` can make one anywhere (the synthesized
        /// initializer is not public API either way).
        nonisolated init() {}

        /// Whether the browser may share cookies and other data with the person's normal browsing.
        public struct BrowserSession: Sendable, Hashable {
            /// Whether the browser session shares nothing and keeps nothing.
            let isEphemeral: Bool

            /// A browser session that shares no data with the person's normal browsing and keeps
            /// none afterwards — on Linux a fresh browser profile, deleted when the session ends
            /// (``ASWebAuthenticationSession/prefersEphemeralWebBrowserSession`` set to `true`).
            public static var ephemeral: Self { Self(isEphemeral: true) }

            /// A browser session that shares the person's browser data, so existing sign-ins
            /// carry over — on Linux the person's own browser where the selection rules allow it
            /// (see `BrowserSelection`), else a controlled browser's shared profile.
            public static var shared: Self { Self(isEphemeral: false) }
        }

        /// Signs in at `url` and returns the URL the service called back with.
        ///
        /// - Parameters:
        ///   - url: The authentication page: `https`, or `http` to a loopback address.
        ///   - callback: Where the service sends the browser at the end (iOS 17.4, macOS 14.4).
        ///   - preferredBrowserSession: ``BrowserSession/ephemeral`` or ``BrowserSession/shared``;
        ///     `nil` means shared, as on Apple platforms.
        ///   - additionalHeaderFields: Header fields sent with the first request to `url`, where
        ///     the browser can send them (as ``ASWebAuthenticationSession/additionalHeaderFields``).
        /// - Returns: The callback URL.
        /// - Throws: ``ASWebAuthenticationSessionError``.
        public func authenticate(
            using url: URL, callback: ASWebAuthenticationSession.Callback,
            preferredBrowserSession: WebAuthenticationSession.BrowserSession? = nil,
            additionalHeaderFields: [String: String]
        ) async throws -> URL {
            try await Self.run(preferredBrowserSession, additionalHeaderFields) { completion in
                ASWebAuthenticationSession(url: url, callback: callback, completionHandler: completion)
            }
        }

        /// Signs in at `url` and returns the URL the service called back with.
        ///
        /// Deprecated, as with Apple's 27.0 SDKs: use
        /// ``authenticate(using:callback:preferredBrowserSession:additionalHeaderFields:)`` with
        /// `.customScheme(_:)`, which behaves the same.
        ///
        /// - Parameters:
        ///   - url: The authentication page: `https`, or `http` to a loopback address.
        ///   - callbackURLScheme: The callback's custom scheme, such as `exampleauth`.
        ///   - preferredBrowserSession: ``BrowserSession/ephemeral`` or ``BrowserSession/shared``;
        ///     `nil` means shared, as on Apple platforms.
        /// - Returns: The callback URL.
        /// - Throws: ``ASWebAuthenticationSessionError``.
        @available(
            *, deprecated, renamed: "authenticate(using:callback:preferredBrowserSession:additionalHeaderFields:)",
            message:
                "Use authenticate(using:callback:preferredBrowserSession:additionalHeaderFields:) with .customScheme(_:)"
        )
        public func authenticate(
            using url: URL, callbackURLScheme: String,
            preferredBrowserSession: WebAuthenticationSession.BrowserSession? = nil
        ) async throws -> URL {
            try await Self.run(preferredBrowserSession, nil) { completion in
                ASWebAuthenticationSession(
                    url: url, callback: .customScheme(callbackURLScheme), completionHandler: completion)
            }
        }

        /// Runs the session `make` creates until its completion handler is called, cancelling it
        /// when the calling task is cancelled. Not isolated: the completion handler runs on any thread.
        nonisolated private static func run(
            _ browserSession: BrowserSession?, _ headerFields: [String: String]?,
            make: @Sendable (@escaping ASWebAuthenticationSession.CompletionHandler) -> ASWebAuthenticationSession
        ) async throws -> URL {
            let outcome = Outcome()
            let session = make { url, error in outcome.finish(url: url, error: error) }
            let context = DefaultPresentationContext()
            session.presentationContextProvider = context
            session.prefersEphemeralWebBrowserSession = browserSession?.isEphemeral ?? false
            session.additionalHeaderFields = headerFields
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    guard outcome.wait(continuation) else { return }
                    // start() reads ASWebAuthenticationSession.environment in this task.
                    if !session.start(), outcome.isCancelled {
                        // Cancelled before it started: a session that never starts delivers nothing.
                        outcome.finish(url: nil, error: ASWebAuthenticationSessionError(.canceledLogin))
                    }
                    withExtendedLifetime(context) {}
                }
            } onCancel: {
                outcome.cancel()
                session.cancel()
            }
        }

        /// The result of one call, handed from the completion handler (any thread) to the caller.
        private final class Outcome: Sendable {
            private struct State {
                var continuation: CheckedContinuation<URL, any Error>?
                var result: Result<URL, any Error>?
                var isCancelled = false
            }

            private let state = Locked(State())

            /// Whether the calling task was cancelled.
            var isCancelled: Bool { state.withLock { $0.isCancelled } }

            /// Marks the call as cancelled by its task.
            func cancel() { state.withLock { $0.isCancelled = true } }

            /// Keeps `continuation` for the result, or resumes it at once if the result is known.
            /// Returns whether the session still needs starting.
            func wait(_ continuation: CheckedContinuation<URL, any Error>) -> Bool {
                let known: Result<URL, any Error>? = state.withLock { state in
                    if state.result == nil, state.isCancelled {
                        state.result = .failure(ASWebAuthenticationSessionError(.canceledLogin))
                    }
                    if let result = state.result { return result }
                    state.continuation = continuation
                    return nil
                }
                guard let known else { return true }
                continuation.resume(with: known)
                return false
            }

            /// Records the result, once, and resumes the caller if it is waiting.
            func finish(url: URL?, error: (any Error)?) {
                let result: Result<URL, any Error> =
                    if let url, error == nil { .success(url) } else {
                        .failure(error ?? ASWebAuthenticationSessionError(.presentationContextInvalid))
                    }
                let waiting: CheckedContinuation<URL, any Error>? = state.withLock { state in
                    guard state.result == nil else { return nil }
                    state.result = result
                    defer { state.continuation = nil }
                    return state.continuation
                }
                waiting?.resume(with: result)
            }
        }
    }
#endif
