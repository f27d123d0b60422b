// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import Logging
public import WebAuthCore
public import WebAuthDesktopSocket

/// Registers URL schemes with the Linux desktop so that the desktop hands `scheme:…` URLs to
/// webauth's handler program, which forwards them to the waiting session.
///
/// This is the Linux form of declaring a URL type in an app's `Info.plist`: a `.desktop` entry
/// for the handler (see `SchemeHandlerEntry`) in the user's `applications` directory, made
/// the default for `x-scheme-handler/{scheme}` with `xdg-mime default`. Browsers (through
/// `xdg-open`, GIO or KDE's launcher) then run `webauth-scheme-handler URL` for such URLs.
///
/// ```swift
/// let registry = DesktopSchemeRegistry()
/// let registration = try registry.register(scheme: "com.example.app")
/// for warning in registration.warnings { print("warning: \(warning)") }
/// ```
///
/// From a terminal: `webauth scheme register com.example.app`.
///
/// Only entries webauth wrote (they carry `X-WebAuth-Scheme`) are ever changed or removed.
public struct DesktopSchemeRegistry: Sendable {
    /// The directories and variables to work with.
    public var environment: DesktopEnvironment
    /// Where to log what is run and written.
    public var logger: Logger

    /// Creates a registry for the desktop described by `environment`.
    public init(
        environment: DesktopEnvironment = DesktopEnvironment(),
        logger: Logger = .webAuthSilent
    ) {
        self.environment = environment
        self.logger = logger
    }

    /// The name of the handler program shipped with the package.
    public static let handlerExecutableName = "webauth-scheme-handler"

    /// This program's name, used as the application a registration belongs to when none is
    /// given: the last component of its executable path, with any character other than letters,
    /// digits and `. _ + -` replaced by `-`.
    public static var currentApplication: String {
        let name = ProcessInfo.processInfo.processName
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")
        let cleaned = String(name.prefix(255).map { allowed.contains($0) ? $0 : "-" })
        return cleaned.isEmpty ? "app" : cleaned
    }

    /// The handler program next to this program's executable (as installed by SwiftPM, which
    /// builds both into one directory), else the first one in `PATH`; `nil` when neither exists.
    public static func defaultHandlerPath(
        environment: DesktopEnvironment = DesktopEnvironment()
    ) -> String? {
        var candidates: [String] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent().path)
        }
        if let first = CommandLine.arguments.first, first.contains("/") {
            candidates.append(URL(fileURLWithPath: first).standardizedFileURL.deletingLastPathComponent().path)
        }
        candidates += environment.searchPath.split(separator: ":").map(String.init)
        return candidates.lazy.map { $0 + "/" + handlerExecutableName }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    // MARK: - Scheme names

    /// A checked scheme name and what the person should know about it.
    public struct CheckedScheme: Sendable, Hashable {
        /// The scheme, lower-cased.
        public var name: String
        /// Advice, such as a recommendation to use a reverse-DNS name.
        public var warnings: [String]
    }

    /// Checks a scheme name with `Callback.validateCustomScheme(_:)` (RFC 3986 §3.1, not a
    /// scheme browsers handle themselves) and warns when it is not reverse DNS (RFC 8252 §7.1)
    /// or has digits (which older `xdg-open` versions do not recognise as a URL scheme).
    ///
    /// - Throws: ``DesktopSchemeError/Code/invalidScheme``.
    public static func checkScheme(_ name: String) throws(DesktopSchemeError) -> CheckedScheme {
        let lowered: String
        do {
            lowered = try Callback.validateCustomScheme(name)
        } catch {
            throw .invalidScheme("'\(name)' cannot be a callback scheme: \(error.message)")
        }
        var warnings: [String] = []
        if !Callback.isReverseDNSScheme(lowered) {
            warnings.append(
                "'\(lowered)' is not a reverse-DNS name; RFC 8252 §7.1 recommends one based on a domain you "
                    + "control, such as com.example.\(lowered), so that no other program claims the same scheme")
        }
        if lowered.contains(where: \.isNumber) {
            warnings.append(
                "'\(lowered)' has digits; xdg-open from xdg-utils before 1.2 (as in Debian 12) takes a URL whose "
                    + "scheme has a digit for a file name and never hands it on, so prefer letters, '.', '+' and '-'")
        }
        return CheckedScheme(name: lowered, warnings: warnings)
    }

    // MARK: - Registering

    /// What ``register(scheme:handlerPath:application:)`` did.
    public struct Registration: Sendable, Hashable {
        /// The registration as the desktop now sees it.
        public var status: SchemeRegistrationStatus
        /// Advice about the scheme name.
        public var warnings: [String]
    }

    /// Registers `scheme`: writes its `.desktop` entry and makes it the default handler.
    ///
    /// Registering again replaces webauth's entry (for example to point at a new handler path).
    ///
    /// - Parameters:
    ///   - scheme: The scheme, such as `com.example.app`.
    ///   - handlerPath: The handler program. Default: ``defaultHandlerPath(environment:)``.
    ///   - application: The program the scheme belongs to, for sessions created without a
    ///     scheme. Default ``currentApplication``; `nil` records none.
    /// - Throws: ``DesktopSchemeError``: an invalid scheme, handler or application name; an
    ///   entry of the same name that webauth did not write; `xdg-mime` missing or failing.
    @discardableResult
    public func register(
        scheme: String,
        handlerPath: String? = nil,
        application: String? = DesktopSchemeRegistry.currentApplication
    ) throws(DesktopSchemeError) -> Registration {
        let checked = try Self.checkScheme(scheme)
        guard let handler = handlerPath ?? Self.defaultHandlerPath(environment: environment) else {
            throw .invalidHandler(
                "\(Self.handlerExecutableName) was not found next to this program or in PATH; "
                    + "build it (swift build) or name it with --handler")
        }
        try SchemeHandlerEntry.validateHandlerPath(handler)
        guard FileManager.default.isExecutableFile(atPath: handler) else {
            throw .invalidHandler("\(handler) is not an executable file")
        }
        if let application { try SchemeHandlerEntry.validateApplication(application) }

        let directory = environment.applicationsDirectory
        let path = entryPath(forScheme: checked.name)
        if let existing = try? String(contentsOfFile: path, encoding: .utf8),
            SchemeHandlerEntry(parsing: existing) == nil
        {
            throw .foreignEntry("\(path) exists and was not written by webauth; remove it or choose another scheme")
        }
        let entry = SchemeHandlerEntry(scheme: checked.name, handlerPath: handler, application: application)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(entry.text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .fileSystem("cannot write \(path): \(error.localizedDescription)")
        }
        logger.debug("desktop entry written", metadata: ["path": "\(path)"])
        _ = try runXDGMime([
            "default", SchemeHandlerEntry.desktopFileID(forScheme: checked.name),
            SchemeHandlerEntry.mimeType(forScheme: checked.name),
        ])
        return Registration(status: try status(scheme: checked.name), warnings: checked.warnings)
    }

    /// Removes webauth's entry for `scheme` and its default association in `mimeapps.list`.
    ///
    /// - Returns: Whether anything was removed.
    /// - Throws: ``DesktopSchemeError``: an invalid scheme; an entry of that name that webauth
    ///   did not write (it is left alone); a file that cannot be changed.
    @discardableResult
    public func unregister(scheme: String) throws(DesktopSchemeError) -> Bool {
        let name = try Self.checkScheme(scheme).name
        let path = entryPath(forScheme: name)
        var removed = false
        if FileManager.default.fileExists(atPath: path) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                SchemeHandlerEntry(parsing: text) != nil
            else {
                throw .foreignEntry("\(path) was not written by webauth; it is left alone")
            }
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw .fileSystem("cannot remove \(path): \(error.localizedDescription)")
            }
            removed = true
        }
        let desktopFileID = SchemeHandlerEntry.desktopFileID(forScheme: name)
        for list in mimeAppsLists {
            guard let text = try? String(contentsOfFile: list, encoding: .utf8),
                let edited = MimeAppsList.removingAssociations(
                    of: desktopFileID, with: SchemeHandlerEntry.mimeType(forScheme: name), in: text)
            else { continue }
            do {
                try Data(edited.utf8).write(to: URL(fileURLWithPath: list), options: .atomic)
            } catch {
                throw .fileSystem("cannot update \(list): \(error.localizedDescription)")
            }
            removed = true
        }
        logger.debug("scheme unregistered", metadata: ["scheme": "\(name)", "removed": "\(removed)"])
        return removed
    }

    // MARK: - Looking up

    /// The registration of `scheme` as the desktop sees it, asking `xdg-mime query default` which
    /// entry is the default handler.
    ///
    /// - Throws: ``DesktopSchemeError/Code/invalidScheme``, or
    ///   ``DesktopSchemeError/Code/xdgUtilsFailed`` when `xdg-mime` is missing.
    public func status(scheme: String) throws(DesktopSchemeError) -> SchemeRegistrationStatus {
        let name = try Self.checkScheme(scheme).name
        let found = installedEntry(forScheme: name)
        let output = try runXDGMime(["query", "default", SchemeHandlerEntry.mimeType(forScheme: name)])
        let defaultHandler = output.trimmingCharacters(in: .whitespacesAndNewlines)
        return SchemeRegistrationStatus(
            scheme: name, entryPath: found?.path, entry: found?.entry,
            defaultHandler: defaultHandler.isEmpty ? nil : defaultHandler,
            handlerIsExecutable: found.map { FileManager.default.isExecutableFile(atPath: $0.entry.handlerPath) }
                ?? false)
    }

    /// Whether webauth's entry for `scheme` is installed with an executable handler — a cheap
    /// check of files, without running `xdg-mime` (see ``status(scheme:)`` for the full picture).
    public func isRegistered(scheme: String) -> Bool {
        guard let found = installedEntry(forScheme: scheme.lowercased()) else { return false }
        return FileManager.default.isExecutableFile(atPath: found.entry.handlerPath)
    }

    /// The schemes whose webauth entries name `application`, sorted.
    public func registeredSchemes(forApplication application: String) -> [String] {
        var schemes = Set<String>()
        for directory in applicationsDirectories {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for name in names where name.hasPrefix("webauth-scheme-") && name.hasSuffix(".desktop") {
                guard let text = try? String(contentsOfFile: directory + "/" + name, encoding: .utf8),
                    let entry = SchemeHandlerEntry(parsing: text), entry.application == application,
                    name == SchemeHandlerEntry.desktopFileID(forScheme: entry.scheme)
                else { continue }
                schemes.insert(entry.scheme)
            }
        }
        return schemes.sorted()
    }

    /// The one scheme registered for `application`: "the scheme this app registered".
    ///
    /// - Throws: ``DesktopSchemeError/Code/noRegisteredScheme`` when there is none (naming the
    ///   command that registers one) or more than one.
    public func registeredScheme(forApplication application: String) throws(DesktopSchemeError) -> String {
        let schemes = registeredSchemes(forApplication: application)
        guard schemes.count == 1, let scheme = schemes.first else {
            if schemes.isEmpty {
                throw .noRegisteredScheme(
                    "no URL scheme is registered for '\(application)'; register one with "
                        + "`webauth scheme register SCHEME --app \(application)`, or give the callback scheme")
            }
            throw .noRegisteredScheme(
                "several URL schemes are registered for '\(application)' (\(schemes.joined(separator: ", "))); "
                    + "give the callback scheme")
        }
        return scheme
    }

    // MARK: - Files

    /// Where ``register(scheme:handlerPath:application:)`` writes the entry for `scheme`.
    public func entryPath(forScheme scheme: String) -> String {
        environment.applicationsDirectory + "/" + SchemeHandlerEntry.desktopFileID(forScheme: scheme)
    }

    /// The user's `applications` directory, then the system's, in lookup order.
    private var applicationsDirectories: [String] {
        [environment.applicationsDirectory] + environment.dataDirectories.map { $0 + "/applications" }
    }

    /// The first webauth entry for `scheme` in the lookup order, the way the desktop finds it.
    private func installedEntry(forScheme scheme: String) -> (path: String, entry: SchemeHandlerEntry)? {
        let fileID = SchemeHandlerEntry.desktopFileID(forScheme: scheme)
        for directory in applicationsDirectories {
            let path = directory + "/" + fileID
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            // The first file with this ID hides the others, whoever wrote it.
            guard let entry = SchemeHandlerEntry(parsing: text), entry.scheme == scheme else { return nil }
            return (path, entry)
        }
        return nil
    }

    /// The `mimeapps.list` files a default association may be recorded in.
    private var mimeAppsLists: [String] {
        [environment.configHome + "/mimeapps.list", environment.applicationsDirectory + "/mimeapps.list"]
    }

    /// Runs `xdg-mime` with `arguments` in ``environment`` and returns its standard output.
    private func runXDGMime(_ arguments: [String]) throws(DesktopSchemeError) -> String {
        guard
            let executable = environment.searchPath.split(separator: ":").lazy.map({ "\($0)/xdg-mime" })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            throw .xdgUtilsFailed("xdg-mime was not found in PATH; install xdg-utils")
        }
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run(executable, arguments, environment: environment.variables)
        } catch {
            throw .xdgUtilsFailed("could not run \(executable): \(error)")
        }
        logger.debug("ran xdg-mime", metadata: ["arguments": "\(arguments)", "status": "\(result.status)"])
        guard result.status == 0 else {
            let detail = result.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
            throw .xdgUtilsFailed(
                "xdg-mime \(arguments.joined(separator: " ")) failed with status \(result.status)"
                    + (detail.isEmpty ? "" : ": \(detail)"))
        }
        return result.standardOutput
    }
}

/// How a scheme is registered with the desktop, as ``DesktopSchemeRegistry/status(scheme:)``
/// found it.
public struct SchemeRegistrationStatus: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lower-cased.
    public var scheme: String
    /// The path of webauth's entry for the scheme, if one is installed.
    public var entryPath: String?
    /// webauth's entry for the scheme, if one is installed.
    package var entry: SchemeHandlerEntry?
    /// The program webauth's entry runs for the scheme, if an entry is installed.
    public var handlerPath: String? { entry?.handlerPath }
    /// The application webauth's entry names, if it names one.
    public var application: String? { entry?.application }
    /// The desktop file ID `xdg-mime query default` names for the scheme, if any.
    public var defaultHandler: String?
    /// Whether the entry's handler program exists and is executable.
    public var handlerIsExecutable: Bool

    /// Whether webauth's entry is the desktop's default handler for the scheme.
    public var isDefault: Bool { defaultHandler == SchemeHandlerEntry.desktopFileID(forScheme: scheme) }

    /// Whether `scheme:` URLs reach webauth's handler: the entry is installed, is the default,
    /// and its handler is executable.
    public var isRegistered: Bool { entry != nil && isDefault && handlerIsExecutable }

    /// A few lines for people.
    public var description: String {
        var lines = ["\(scheme): " + (isRegistered ? "registered" : "not registered")]
        if let entryPath { lines.append("  entry: \(entryPath)") }
        if let entry {
            lines.append(
                "  handler: \(entry.handlerPath)" + (handlerIsExecutable ? "" : " (missing or not executable)"))
            if let application = entry.application { lines.append("  application: \(application)") }
        }
        lines.append(
            "  default handler: \(defaultHandler ?? "none")"
                + (isDefault || defaultHandler == nil ? "" : " (another program)"))
        return lines.joined(separator: "\n")
    }
}
