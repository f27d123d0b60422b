// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    public import Foundation
    public import WebAuth

    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// The error domain of ``SFAuthenticationError``, Apple's: `com.apple.SafariServices.Authentication`.
    @available(*, deprecated, message: "Use ASWebAuthenticationSessionErrorDomain instead")
    public let SFAuthenticationErrorDomain = "com.apple.SafariServices.Authentication"

    /// The error an ``SFAuthenticationSession`` ends with: always a cancellation, as on Apple
    /// platforms, where the session could report nothing else.
    ///
    /// On Linux every failure (not only a cancelled login) ends the session with
    /// ``Code/canceledLogin``; the detailed error is kept as ``webAuthenticationError`` (also
    /// under `NSUnderlyingErrorKey`) and its message as `NSLocalizedDescriptionKey`.
    @available(*, deprecated, message: "Use ASWebAuthenticationSessionError instead")
    public struct SFAuthenticationError: CustomNSError, Hashable, Error {
        /// The error codes, with Apple's raw values.
        public enum Code: Int, Sendable, Hashable {
            /// The login was cancelled (on Linux: or failed). 1.
            case canceledLogin = 1

            /// Whether `error` is an ``SFAuthenticationError`` with this code.
            public static func ~= (code: Code, error: any Error) -> Bool {
                (error as? SFAuthenticationError)?.code == code
            }
        }

        /// The error, as `NSError`, as Apple stores it.
        public let _nsError: NSError

        /// An error with `code` and `userInfo`.
        public init(_ code: Code, userInfo: [String: Any] = [:]) {
            _nsError = NSError(domain: Self.errorDomain, code: code.rawValue, userInfo: userInfo)
        }

        /// The Linux session's error, reported as a cancellation.
        public init(_ error: WebAuthenticationSessionError) {
            self.init(
                .canceledLogin,
                userInfo: [
                    NSLocalizedDescriptionKey: error.message, NSUnderlyingErrorKey: error,
                    ASWebAuthenticationSessionError.webAuthenticationErrorKey: error,
                ])
        }

        /// The code.
        public var code: Code { Code(rawValue: _nsError.code) ?? .canceledLogin }
        /// The code's raw value.
        public var errorCode: Int { _nsError.code }
        /// The user info.
        public var userInfo: [String: Any] { _nsError.userInfo }
        /// The user info, for `NSError` bridging.
        public var errorUserInfo: [String: Any] { _nsError.userInfo }
        /// `com.apple.SafariServices.Authentication`.
        public static var errorDomain: String { SFAuthenticationErrorDomain }
        /// The detailed error of the Linux session, if the error came from one.
        public var webAuthenticationError: WebAuthenticationSessionError? {
            userInfo[ASWebAuthenticationSessionError.webAuthenticationErrorKey] as? WebAuthenticationSessionError
        }

        /// ``Code/canceledLogin``.
        public static var canceledLogin: Code { .canceledLogin }

        /// Errors are equal when their codes are.
        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
        /// Hashes the code.
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    }

    /// Apple's first web sign-in session (iOS 11), deprecated in favour of
    /// ``ASWebAuthenticationSession`` — on Linux, an ``ASWebAuthenticationSession`` presented
    /// with the default ``ASPresentationAnchor`` (it has no presentation context provider).
    ///
    /// ```swift
    /// authSession = SFAuthenticationSession(url: authURL, callbackURLScheme: nil) { callbackURL, error in … }
    /// authSession.start()   // true
    /// authSession.start()   // false: a session runs once
    /// ```
    ///
    /// A `nil` `callbackURLScheme` means the scheme registered for this program (on Apple
    /// platforms, the one in `Info.plist`): see ``ASWebAuthenticationSession``. The session keeps
    /// itself alive until its completion handler has run, which it calls on the main queue
    /// whenever something drains it (see ``MainThreadDelivery``). Errors are
    /// ``SFAuthenticationError``.
    @available(*, deprecated, message: "Use ASWebAuthenticationSession instead")
    open class SFAuthenticationSession: NSObject, @unchecked Sendable {
        // @unchecked Sendable: the stored properties are immutable; `session` is Sendable (see
        // ASWebAuthenticationSession) and `context` is only read by it.

        /// The completion handler's type: the callback URL, or an error.
        public typealias CompletionHandler = (URL?, (any Error)?) -> Void

        private let session: ASWebAuthenticationSession
        /// The session's presentation context provider, kept here because the session holds it weakly.
        private let context = DefaultPresentationContext()

        /// Creates a session for the page at `url` whose service calls back with
        /// `callbackURLScheme` (`nil`: the scheme registered for this program).
        public init(url: URL, callbackURLScheme: String?, completionHandler: @escaping CompletionHandler) {
            let completion: ASWebAuthenticationSession.CompletionHandler = { callbackURL, error in
                let reported = (error as? ASWebAuthenticationSessionError).map { error in
                    error.webAuthenticationError.map { SFAuthenticationError($0) }
                        ?? SFAuthenticationError(.canceledLogin)
                }
                completionHandler(callbackURL, reported ?? error)
            }
            session =
                if let callbackURLScheme {
                    ASWebAuthenticationSession(
                        url: url, callback: .customScheme(callbackURLScheme), completionHandler: completion)
                } else {
                    ASWebAuthenticationSession.forRegisteredScheme(url: url, completionHandler: completion)
                }
            super.init()
            session.presentationContextProvider = context
        }

        /// Not available: a session needs a URL, a callback scheme and a completion handler.
        @available(*, unavailable)
        public override init() {
            fatalError("SFAuthenticationSession() is unavailable")
        }

        /// Starts the session.
        ///
        /// - Returns: `true` the first time; `false` once it has been started or cancelled, or
        ///   when it cannot start (the completion handler then receives why).
        @discardableResult
        open func start() -> Bool {
            session.start()
        }

        /// Cancels the session: a running one ends with ``SFAuthenticationError/Code/canceledLogin``.
        open func cancel() {
            session.cancel()
        }
    }
#endif
