// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuth

/// `webauth scheme register|unregister|status SCHEME`: custom URL schemes on the Linux desktop.
struct SchemeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scheme",
        abstract: "Register custom URL schemes with the desktop so that sign-in callbacks reach webauth.",
        discussion: """
            A registered scheme makes the desktop (xdg-open, GIO, KDE) run webauth-scheme-handler for \
            SCHEME:… URLs; the handler hands them to the session waiting for that scheme, such as \
            `webauth open --callback-scheme SCHEME …`. Use a reverse-DNS name you control, such as \
            com.example.app (RFC 8252 §7.1).

            The .desktop entry goes in $XDG_DATA_HOME/applications (~/.local/share/applications) and \
            the default association in $XDG_CONFIG_HOME/mimeapps.list, through xdg-mime.
            """,
        subcommands: [Register.self, Unregister.self, Status.self]
    )

    struct Register: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register",
            abstract: "Make webauth's handler the desktop's handler for SCHEME: URLs.",
            discussion: "Exit status: 0 registered, 1 failed (for example xdg-utils missing), 7 invalid input."
        )

        @Argument(help: "The URL scheme, such as com.example.app.")
        var scheme: String

        @Option(help: "The handler program (default: webauth-scheme-handler next to webauth, else in PATH).")
        var handler: String?

        @Option(
            name: .customLong("app"),
            help: ArgumentHelp(
                "The program the scheme belongs to: its sessions created without a scheme use this one.",
                valueName: "NAME"))
        var application: String?

        @Flag(help: "Print the result as JSON on standard output.")
        var json = false

        func run() throws {
            let registry = DesktopSchemeRegistry()
            do {
                let registration = try registry.register(
                    scheme: scheme, handlerPath: handler, application: application)
                let output = CommandOutput(json: json)
                for warning in registration.warnings { output.note("warning: \(warning)") }
                if json {
                    output.emit(SchemeCommand.object(for: registration.status, warnings: registration.warnings))
                } else {
                    output.result(registration.status.description)
                }
                guard registration.status.isRegistered else {
                    output.note(
                        "error: the desktop still names \(registration.status.defaultHandler ?? "no handler") "
                            + "for \(registration.status.scheme):")
                    throw ExitCode(ExitStatus.failure)
                }
            } catch let error as DesktopSchemeError {
                throw SchemeCommand.fail(error)
            }
        }
    }

    struct Unregister: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unregister",
            abstract: "Remove webauth's handler for SCHEME: URLs.",
            discussion: "Exit status: 0 done (also when it was not registered), 1 failed, 7 invalid input."
        )

        @Argument(help: "The URL scheme, such as com.example.app.")
        var scheme: String

        func run() throws {
            do {
                let removed = try DesktopSchemeRegistry().unregister(scheme: scheme)
                CommandOutput(json: false).result(
                    removed ? "Unregistered \(scheme.lowercased()):" : "\(scheme.lowercased()): was not registered")
            } catch {
                throw SchemeCommand.fail(error)
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show whether SCHEME: URLs reach webauth's handler.",
            discussion: "Exit status: 0 registered, 1 not registered (or failed), 7 invalid input."
        )

        @Argument(help: "The URL scheme, such as com.example.app.")
        var scheme: String

        @Flag(help: "Print the status as JSON on standard output.")
        var json = false

        func run() throws {
            do {
                let status = try DesktopSchemeRegistry().status(scheme: scheme)
                let output = CommandOutput(json: json)
                if json {
                    output.emit(SchemeCommand.object(for: status, warnings: []))
                } else {
                    output.result(status.description)
                }
                if !status.isRegistered { throw ExitCode(ExitStatus.failure) }
            } catch let error as DesktopSchemeError {
                throw SchemeCommand.fail(error)
            }
        }
    }

    /// Writes the error and returns the exit code for it.
    static func fail(_ error: DesktopSchemeError) -> ExitCode {
        CommandOutput(json: false).note("error: \(error.message)")
        switch error.code {
        case .invalidScheme, .invalidHandler, .invalidApplication: return ExitCode(ExitStatus.invalidInput)
        default: return ExitCode(ExitStatus.failure)
        }
    }

    static func object(for status: SchemeRegistrationStatus, warnings: [String]) -> [String: Any] {
        var object: [String: Any] = [
            "scheme": status.scheme, "registered": status.isRegistered, "is_default": status.isDefault,
            "handler_is_executable": status.handlerIsExecutable, "warnings": warnings,
        ]
        object["entry"] = status.entryPath
        object["handler"] = status.handlerPath
        object["application"] = status.application
        object["default_handler"] = status.defaultHandler
        return object
    }
}
