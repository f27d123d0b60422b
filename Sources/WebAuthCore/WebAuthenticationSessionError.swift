// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The error a ``WebAuthSession`` ends with when it does not deliver a callback URL.
///
/// Switch on ``code``; for cancellations, ``cancellationReason`` tells *who* cancelled (the
/// person, the program, or the clock), which Apple's API does not. The first three codes have
/// Apple's raw values so that they map one to one onto `ASWebAuthenticationSessionError`.
///
/// ```swift
/// do {
///     let url = try await session.authenticate().url
/// } catch let error where error.code == .canceledLogin {
///     if error.cancellationReason == .user { print("You closed the browser window.") }
/// } catch {
///     print(error.message)  // `authenticate()` throws only this type
/// }
/// ```
///
/// ``description`` is safe to show: it never contains an authorization URL's query, a callback
/// URL's parameters, or any other secret.
public struct WebAuthenticationSessionError: WebAuthError {
    /// What went wrong, as a number that stays stable across releases.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The number.
        public let rawValue: Int
        /// Creates a code from its number.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The session was cancelled before it received a callback: by the person (closed the
        /// window), the program (``WebAuthSession/cancel()`` or task cancellation).
        /// Apple's value, 1.
        public static let canceledLogin = Code(rawValue: 1)
        /// A presentation context was required and none was given. Apple's value, 2.
        public static let presentationContextNotProvided = Code(rawValue: 2)
        /// The presentation context cannot present a browser. Apple's value, 3.
        public static let presentationContextInvalid = Code(rawValue: 3)
        /// No browser is available to open the authorization URL.
        public static let noBrowserAvailable = Code(rawValue: 100)
        /// The browser could not be started, or exited with a failure.
        public static let browserLaunchFailed = Code(rawValue: 101)
        /// The callback receiver could not listen (for example the loopback port was busy);
        /// ``WebAuthenticationSessionError/port`` names the port when there is one.
        public static let callbackListenerFailed = Code(rawValue: 102)
        /// No callback arrived within the session's timeout.
        public static let timedOut = Code(rawValue: 103)
        /// A URL offered as the callback (for example one pasted by the person) does not match
        /// the session's callback.
        public static let callbackMismatch = Code(rawValue: 104)
        /// The chosen browser cannot honour something the caller required (ephemeral browsing,
        /// extra header fields, catching this kind of callback).
        public static let browserCannotHonorRequest = Code(rawValue: 105)
        /// The authorization URL is not one a browser may be asked to open: only `https`, and
        /// `http` to a loopback address, are opened.
        public static let invalidAuthorizationURL = Code(rawValue: 106)
        /// The callback description is not valid (for example a malformed custom scheme).
        public static let invalidCallback = Code(rawValue: 107)
        /// Nothing can receive this kind of callback here (no controlled browser, no registered
        /// scheme handler, no way to paste it).
        public static let noCallbackReceiver = Code(rawValue: 108)
        /// An entry of ``WebAuthSession/additionalHeaderFields`` may not be sent: a
        /// name the browser controls itself (`Cookie`, `Host`, `Origin`, …), or a malformed name
        /// or value.
        public static let invalidHeaderField = Code(rawValue: 109)

        /// The code's name, such as `canceledLogin`.
        public var description: String {
            switch self {
            case .canceledLogin: "canceledLogin"
            case .presentationContextNotProvided: "presentationContextNotProvided"
            case .presentationContextInvalid: "presentationContextInvalid"
            case .noBrowserAvailable: "noBrowserAvailable"
            case .browserLaunchFailed: "browserLaunchFailed"
            case .callbackListenerFailed: "callbackListenerFailed"
            case .timedOut: "timedOut"
            case .callbackMismatch: "callbackMismatch"
            case .browserCannotHonorRequest: "browserCannotHonorRequest"
            case .invalidAuthorizationURL: "invalidAuthorizationURL"
            case .invalidCallback: "invalidCallback"
            case .noCallbackReceiver: "noCallbackReceiver"
            case .invalidHeaderField: "invalidHeaderField"
            default: "code \(rawValue)"
            }
        }
    }

    /// Why a session was cancelled.
    public struct CancellationReason: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// The person cancelled: closed the browser window or tab, or declined in the browser.
        public static let user = CancellationReason(name: "user")
        /// The program cancelled: ``WebAuthSession/cancel()``, task cancellation, or an
        /// interrupt such as Ctrl-C in a command-line tool.
        public static let program = CancellationReason(name: "program")
        /// The session's timeout ran out.
        public static let timeout = CancellationReason(name: "timeout")

        /// `user`, `program` or `timeout`.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// For ``Code/canceledLogin`` and ``Code/timedOut``: who or what ended the session.
    public let cancellationReason: CancellationReason?
    /// The port involved, for ``Code/callbackListenerFailed``.
    public let port: Int?
    /// A sentence for people, free of secrets.
    public let message: String

    /// Creates an error. Libraries that implement a ``Browser`` or ``CallbackReceiver`` use the
    /// static factories instead.
    public init(code: Code, message: String, cancellationReason: CancellationReason? = nil, port: Int? = nil) {
        self.code = code
        self.message = message
        self.cancellationReason = cancellationReason
        self.port = port
    }

    /// Apple's error domain, for bridging to `NSError`.
    public static let errorDomain = "com.apple.AuthenticationServices.WebAuthenticationSession"
}

extension WebAuthenticationSessionError {
    /// The session was cancelled for `reason`.
    public static func cancelled(_ reason: CancellationReason) -> Self {
        let message =
            switch reason {
            case .user: "the sign-in was cancelled in the browser"
            case .timeout: "the sign-in timed out"
            default: "the sign-in was cancelled by the program"
            }
        return Self(code: .canceledLogin, message: message, cancellationReason: reason)
    }

    /// No callback arrived within `timeout`.
    public static func timedOut(after timeout: Duration) -> Self {
        Self(
            code: .timedOut, message: "no callback arrived within \(timeout.formattedSeconds)",
            cancellationReason: .timeout)
    }

    /// The listener could not listen on `port` (or on any port when `port` is nil).
    public static func listenerFailed(port: Int?, _ detail: String) -> Self {
        let place = port.map { "port \($0)" } ?? "a loopback port"
        return Self(
            code: .callbackListenerFailed, message: "could not listen on \(place): \(detail)", port: port)
    }

    /// No browser can be used; `detail` says what was looked for and how to fix it.
    public static func noBrowserAvailable(_ detail: String) -> Self {
        Self(code: .noBrowserAvailable, message: detail)
    }

    /// The browser failed to start or exited with a failure.
    public static func browserLaunchFailed(_ detail: String) -> Self {
        Self(code: .browserLaunchFailed, message: detail)
    }

    /// The chosen browser cannot honour a requirement.
    public static func browserCannotHonor(_ detail: String) -> Self {
        Self(code: .browserCannotHonorRequest, message: detail)
    }

    /// The authorization URL may not be opened.
    public static func invalidAuthorizationURL(_ detail: String) -> Self {
        Self(code: .invalidAuthorizationURL, message: detail)
    }

    /// The callback description is invalid.
    public static func invalidCallback(_ detail: String) -> Self {
        Self(code: .invalidCallback, message: detail)
    }

    /// A URL offered as the callback does not match.
    public static func callbackMismatch(_ detail: String) -> Self {
        Self(code: .callbackMismatch, message: detail)
    }

    /// A header field may not be sent.
    public static func invalidHeaderField(_ detail: String) -> Self {
        Self(code: .invalidHeaderField, message: detail)
    }

    /// Nothing can receive this kind of callback.
    public static func noCallbackReceiver(_ detail: String) -> Self {
        Self(code: .noCallbackReceiver, message: detail)
    }
}

extension Duration {
    /// `90 s`, `1.5 s`.
    var formattedSeconds: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return seconds.rounded() == seconds ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}
