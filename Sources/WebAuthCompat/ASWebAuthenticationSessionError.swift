// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    public import Foundation
    public import WebAuth

    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// The error domain of ``ASWebAuthenticationSessionError``, Apple's:
    /// `com.apple.AuthenticationServices.WebAuthenticationSession`.
    public let ASWebAuthenticationSessionErrorDomain = "com.apple.AuthenticationServices.WebAuthenticationSession"

    /// Errors a web authentication session ends with, with Apple's domain and codes.
    ///
    /// ```swift
    /// if let error = error as? ASWebAuthenticationSessionError, error.code == .canceledLogin { … }
    /// // or
    /// catch ASWebAuthenticationSessionError.canceledLogin { … }
    /// ```
    ///
    /// ## From the Linux session's errors
    /// The session underneath reports more than Apple's three codes. They map as follows, and
    /// the detailed `WebAuthenticationSessionError` stays reachable as ``webAuthenticationError``
    /// (also under `NSUnderlyingErrorKey`), its message as `NSLocalizedDescriptionKey`:
    ///
    /// | WebAuthenticationSessionError | Code |
    /// |---|---|
    /// | `canceledLogin` (by the person or the program) | ``Code/canceledLogin`` |
    /// | `timedOut` (Apple's session has no timeout; ending it is a cancellation) | ``Code/canceledLogin`` |
    /// | `presentationContextNotProvided` | ``Code/presentationContextNotProvided`` |
    /// | everything else: no usable browser, browser failed, callback listener failed, scheme not registered, invalid callback or URL | ``Code/presentationContextInvalid`` |
    public struct ASWebAuthenticationSessionError: CustomNSError, Hashable, Error {
        /// The error codes, with Apple's raw values.
        public enum Code: Int, Sendable, Hashable {
            /// The login was cancelled: by the person, by `cancel()`, or (on Linux) by a timeout. 1.
            case canceledLogin = 1
            /// No presentation context provider was set before `start()`. 2.
            case presentationContextNotProvided = 2
            /// The presentation context could not present the session — on Linux also anything
            /// else that stopped the session; see ``ASWebAuthenticationSessionError/webAuthenticationError``. 3.
            case presentationContextInvalid = 3

            /// Whether `error` is an ``ASWebAuthenticationSessionError`` with this code, so that
            /// `catch ASWebAuthenticationSessionError.canceledLogin` works as on Apple platforms.
            public static func ~= (code: Code, error: any Error) -> Bool {
                (error as? ASWebAuthenticationSessionError)?.code == code
            }
        }

        /// The key under which ``webAuthenticationError`` is kept in ``userInfo``.
        public static let webAuthenticationErrorKey = "WebAuthenticationSessionError"

        /// The error, as `NSError` (domain ``errorDomain``, this code, ``userInfo``), as Apple
        /// stores it.
        public let _nsError: NSError

        /// An error with `code` and `userInfo`.
        public init(_ code: Code, userInfo: [String: Any] = [:]) {
            _nsError = NSError(domain: Self.errorDomain, code: code.rawValue, userInfo: userInfo)
        }

        /// The Linux session's error as Apple's (see the mapping in the type's documentation).
        public init(_ error: WebAuthenticationSessionError) {
            var userInfo: [String: Any] = [
                NSLocalizedDescriptionKey: error.message,
                NSUnderlyingErrorKey: error,
                Self.webAuthenticationErrorKey: error,
            ]
            if error.code == .presentationContextNotProvided {
                userInfo[NSDebugDescriptionErrorKey] =
                    "Cannot start ASWebAuthenticationSession without providing presentation context. "
                    + "Set presentationContextProvider before calling -start."
            }
            self.init(Self.code(for: error), userInfo: userInfo)
        }

        /// Apple's code for one of the Linux session's errors.
        static func code(for error: WebAuthenticationSessionError) -> Code {
            switch error.code {
            case .canceledLogin, .timedOut: .canceledLogin
            case .presentationContextNotProvided: .presentationContextNotProvided
            default: .presentationContextInvalid
            }
        }

        /// The code.
        public var code: Code { Code(rawValue: _nsError.code) ?? .presentationContextInvalid }
        /// The code's raw value.
        public var errorCode: Int { _nsError.code }
        /// The user info: a description, and for errors from the Linux session the detailed error.
        public var userInfo: [String: Any] { _nsError.userInfo }
        /// The user info, for `NSError` bridging.
        public var errorUserInfo: [String: Any] { _nsError.userInfo }
        /// `com.apple.AuthenticationServices.WebAuthenticationSession`.
        public static var errorDomain: String { ASWebAuthenticationSessionErrorDomain }

        /// The detailed error of the Linux session this error stands for (who cancelled, which
        /// port, what to fix), if it came from one.
        public var webAuthenticationError: WebAuthenticationSessionError? {
            userInfo[Self.webAuthenticationErrorKey] as? WebAuthenticationSessionError
        }

        /// ``Code/canceledLogin``.
        public static var canceledLogin: Code { .canceledLogin }
        /// ``Code/presentationContextNotProvided``.
        public static var presentationContextNotProvided: Code { .presentationContextNotProvided }
        /// ``Code/presentationContextInvalid``.
        public static var presentationContextInvalid: Code { .presentationContextInvalid }

        /// Errors are equal when their codes are.
        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
        /// Hashes the code.
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    }
#endif
