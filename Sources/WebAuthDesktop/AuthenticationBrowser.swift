// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import Logging
public import WebAuthCore
public import WebAuthDesktopSocket
import WebAuthProcess

/// The person's web-authentication browser as a ``Browser``: a session presents by handing its
/// request to the registered program (see ``AuthenticationBrowserRegistry``) over that program's
/// 0600 Unix socket, starting the program when it is not listening.
///
/// The program answers with the callback URL or a cancellation; the session's rules hold as with
/// any browser — the URL must match the callback and pass the session's acceptance test, the
/// session ends once, its timeout and `cancel()` apply. When the session ends without the
/// program's answer (cancelled, timed out), the program is told to cancel. A program that
/// closes the connection without answering — it exited, crashed or was killed — ends the session
/// at once with ``WebAuthenticationSessionError/Code/browserLaunchFailed``.
///
/// ```swift
/// if let registration = AuthenticationBrowserRegistry().registration, registration.isUsable {
///     let environment = SessionEnvironment(
///         browser: AuthenticationBrowser(registration: registration), receivers: [])
/// }
/// ```
public struct AuthenticationBrowser: Browser {
    /// The environment variable set for a program started for a request, whose value is `1`:
    /// it makes `wasLaunchedByAuthenticationServices` true.
    public static let launchedVariable = "WEBAUTH_LAUNCHED_FOR_AUTHENTICATION"

    /// The registered program.
    public var registration: AuthenticationBrowserRegistration
    /// The desktop whose socket directory and variables are used (the program is started with
    /// these variables).
    public var environment: DesktopEnvironment
    /// How long a started program has to start listening.
    public var launchTimeout: Duration
    /// Where to log what is done.
    public var logger: Logger

    /// A browser for `registration`.
    public init(
        registration: AuthenticationBrowserRegistration, environment: DesktopEnvironment = DesktopEnvironment(),
        launchTimeout: Duration = .seconds(30),
        logger: Logger = .webAuthSilent
    ) {
        self.registration = registration
        self.environment = environment
        self.launchTimeout = launchTimeout
        self.logger = logger
    }

    /// The program's registered name.
    public var name: String { registration.name }

    /// It hands the callback back itself, sends header fields, is told when the session ends and
    /// tells when the person cancels; ephemeral sessions when it declares
    /// `EphemeralBrowserSessionIsSupported`.
    public var capabilities: BrowserCapabilities {
        var capabilities: BrowserCapabilities = [
            .callbackInterception, .additionalHeaderFields, .dismissal, .closeDetection,
        ]
        if registration.capabilities.ephemeralBrowserSessionIsSupported { capabilities.insert(.ephemeralSessions) }
        return capabilities
    }

    /// Connects to the program (starting it if needed) and sends the request.
    ///
    /// - Throws: ``WebAuthenticationSessionError/Code/browserLaunchFailed`` when the program
    ///   cannot be started or reached, or ``WebAuthenticationSessionError/Code/browserCannotHonorRequest``
    ///   for a callback it did not declare it can match.
    public func present(
        _ request: BrowserRequest
    ) async throws(WebAuthenticationSessionError) -> any BrowserPresentation {
        guard registration.capabilities.canHonor(callback: request.callback, prefersEphemeralSession: false) else {
            throw .browserCannotHonor("\(name) does not declare that it can match \(request.callback) callbacks")
        }
        let handOff = AuthenticationBrowserRequest(
            url: request.url, callback: request.callback, prefersEphemeralSession: request.prefersEphemeralSession,
            additionalHeaderFields: request.additionalHeaderFields)
        // Connecting and sending the request happen on one thread of their own, back to back:
        // the program gives a new connection a few seconds for its request, and the session's
        // task may wait longer than that for a thread on a busy machine.
        let line = AuthenticationBrowserMessage.begin(handOff).line
        let handedOver = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: connect(sending: line)) }
        }
        let descriptor: Int32
        switch handedOver {
        case .success(let connection): descriptor = connection
        case .failure(let error): throw .browserLaunchFailed("\(name): \(error.message)")
        }
        logger.debug("handed the request to \(name)", metadata: ["url": "\(request.url.redactedForLogs)"])
        do {
            return try await AuthenticationBrowserPresentation.start(
                descriptor: descriptor, request: handOff, browserName: name)
        } catch {
            throw .browserLaunchFailed("\(name): cannot read its answer: \(error)")
        }
    }

    /// Connects to the program's socket (starting the program first if nothing listens) and
    /// sends `line`, the request. Blocks.
    private func connect(sending line: [UInt8]) -> Result<Int32, AuthenticationBrowserError> {
        switch connect() {
        case .success(let descriptor):
            guard DesktopSocketCalls.writeAll(descriptor, line, deadline: .now + .seconds(5)) else {
                DesktopSocketCalls.close(descriptor)
                return .failure(.launchFailed("it did not take the request"))
            }
            return .success(descriptor)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Connects to the program's socket, starting the program first if nothing listens. Blocks.
    private func connect() -> Result<Int32, AuthenticationBrowserError> {
        let directory = CallbackSocketDirectory(environment: environment)
        let path = directory.authenticationBrowserSocketPath
        if let descriptor = connectAsOwner(path) { return .success(descriptor) }
        do {
            try directory.prepare()
        } catch {
            return .failure(.fileSystem(error.description))
        }
        var variables = environment.variables
        variables[Self.launchedVariable] = "1"
        let program: Subprocess
        do {
            program = try Subprocess(executable: registration.executablePath, arguments: [], environment: variables)
        } catch {
            return .failure(.launchFailed("cannot start \(registration.executablePath): \(error)"))
        }
        logger.debug("started \(name)", metadata: ["pid": "\(program.pid)"])
        let deadline = ContinuousClock.now + launchTimeout
        while ContinuousClock.now < deadline {
            if let descriptor = connectAsOwner(path) { return .success(descriptor) }
            if program.hasExited {
                return .failure(.launchFailed("\(registration.executablePath) exited before it listened for requests"))
            }
            Thread.sleep(forTimeInterval: 0.025)
        }
        return .failure(
            .launchFailed("\(registration.executablePath) did not listen for requests within \(launchTimeout)"))
    }

    /// A connection to `path` whose listener is this user, or `nil`.
    private func connectAsOwner(_ path: String) -> Int32? {
        guard let descriptor = try? DesktopSocketCalls.makeConnection(to: path) else { return nil }
        guard DesktopSocketCalls.peerUserID(descriptor) == DesktopSocketCalls.effectiveUserID else {
            DesktopSocketCalls.close(descriptor)
            return nil
        }
        return descriptor
    }
}
