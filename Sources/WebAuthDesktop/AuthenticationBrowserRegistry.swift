// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import Logging
public import WebAuthCore
public import WebAuthDesktopSocket

/// Registers a program as the person's web-authentication browser: the program that answers
/// other programs' sign-ins, as a browser app does on macOS with
/// `ASWebAuthenticationSessionWebBrowserSessionManager`.
///
/// The registration is a `.desktop` entry in the user's `applications` directory carrying the
/// program's path and its capabilities (see `AuthenticationBrowserEntry`), the Linux form of an
/// `Info.plist` with `ASWebAuthenticationSessionWebBrowserSupportCapabilities`. There is one per
/// person; registering again replaces it.
///
/// ```swift
/// let registry = AuthenticationBrowserRegistry()
/// try registry.register(
///     name: "Example Browser", executablePath: "/usr/local/bin/example-browser",
///     capabilities: AuthenticationBrowserCapabilities(ephemeralBrowserSessionIsSupported: true))
/// ```
///
/// From a terminal: `webauth browser register PATH --name NAME --ephemeral --callback-matching`.
/// A session that would open the person's browser then hands the request to the program over
/// the socket ``CallbackSocketDirectory/authenticationBrowserSocketPath`` (see
/// `AuthenticationBrowser`), starting the program if it is not running.
public struct AuthenticationBrowserRegistry: Sendable {
    /// The directories and variables to work with.
    public var environment: DesktopEnvironment
    /// Where to log what is written.
    public var logger: Logger

    /// Creates a registry for the desktop described by `environment`.
    public init(
        environment: DesktopEnvironment = DesktopEnvironment(),
        logger: Logger = .webAuthSilent
    ) {
        self.environment = environment
        self.logger = logger
    }

    /// Registers the program at `executablePath` as the person's web-authentication browser.
    ///
    /// - Throws: ``AuthenticationBrowserError``: an invalid name or path, a program that is not
    ///   executable, an entry of webauth's name that webauth did not write, a file that cannot be
    ///   written.
    @discardableResult
    public func register(
        name: String, executablePath: String, capabilities: AuthenticationBrowserCapabilities
    ) throws(AuthenticationBrowserError) -> AuthenticationBrowserRegistration {
        try AuthenticationBrowserEntry.validateName(name)
        guard (try? SchemeHandlerEntry.validateHandlerPath(executablePath)) != nil else {
            throw .invalidRegistration(
                "the program path must be absolute and made of letters, digits and / . _ + - only "
                    + "(what a desktop entry's Exec line carries everywhere), not '\(executablePath)'")
        }
        guard FileManager.default.isExecutableFile(atPath: executablePath) else {
            throw .invalidRegistration("\(executablePath) is not an executable file")
        }
        let path = entryPath
        if let existing = try? String(contentsOfFile: path, encoding: .utf8),
            AuthenticationBrowserEntry(parsing: existing) == nil
        {
            throw .foreignEntry("\(path) exists and was not written by webauth; remove it first")
        }
        let entry = AuthenticationBrowserEntry(name: name, executablePath: executablePath, capabilities: capabilities)
        do {
            try FileManager.default.createDirectory(
                atPath: environment.applicationsDirectory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try Data(entry.text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .fileSystem("cannot write \(path): \(error.localizedDescription)")
        }
        logger.debug("web-authentication browser registered", metadata: ["path": "\(path)"])
        return AuthenticationBrowserRegistration(entryPath: path, entry: entry)
    }

    /// Removes webauth's registration.
    ///
    /// - Returns: Whether there was one.
    /// - Throws: ``AuthenticationBrowserError``: an entry of webauth's name that webauth did not
    ///   write (it is left alone), or one that cannot be removed.
    @discardableResult
    public func unregister() throws(AuthenticationBrowserError) -> Bool {
        let path = entryPath
        guard FileManager.default.fileExists(atPath: path) else { return false }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            AuthenticationBrowserEntry(parsing: text) != nil
        else {
            throw .foreignEntry("\(path) was not written by webauth; it is left alone")
        }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw .fileSystem("cannot remove \(path): \(error.localizedDescription)")
        }
        return true
    }

    /// The registration, if there is one: the user's entry, else one in the system's data
    /// directories (the first found hides the others, as the desktop finds entries).
    public var registration: AuthenticationBrowserRegistration? {
        let directories = [environment.applicationsDirectory] + environment.dataDirectories.map { $0 + "/applications" }
        for directory in directories {
            let path = directory + "/" + AuthenticationBrowserEntry.desktopFileID
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            guard let entry = AuthenticationBrowserEntry(parsing: text) else { return nil }
            return AuthenticationBrowserRegistration(entryPath: path, entry: entry)
        }
        return nil
    }

    /// Where ``register(name:executablePath:capabilities:)`` writes the entry.
    public var entryPath: String {
        environment.applicationsDirectory + "/" + AuthenticationBrowserEntry.desktopFileID
    }
}

/// A program registered as the person's web-authentication browser.
public struct AuthenticationBrowserRegistration: Sendable, Hashable, CustomStringConvertible {
    /// The desktop entry's path.
    public var entryPath: String
    /// The entry.
    package var entry: AuthenticationBrowserEntry

    /// The program's name.
    public var name: String { entry.name }
    /// The program's absolute path.
    public var executablePath: String { entry.executablePath }
    /// What the program declares it can do.
    public var capabilities: AuthenticationBrowserCapabilities { entry.capabilities }
    /// Whether the program exists and is executable.
    public var isExecutable: Bool { FileManager.default.isExecutableFile(atPath: entry.executablePath) }
    /// Whether sessions hand requests to it: it says `IsSupported` and can be run.
    public var isUsable: Bool { capabilities.isSupported && isExecutable }

    /// A few lines for people.
    public var description: String {
        [
            "\(name): " + (isUsable ? "registered" : "registered but not usable"),
            "  program: \(executablePath)" + (isExecutable ? "" : " (missing or not executable)"),
            "  entry: \(entryPath)",
            "  capabilities: \(capabilities)",
        ].joined(separator: "\n")
    }
}
