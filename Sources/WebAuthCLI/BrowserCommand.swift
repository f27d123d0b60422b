// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuth

/// `webauth browser register|unregister|status`: the person's web-authentication browser, the
/// program that answers other programs' sign-ins (Apple: a browser app with
/// `ASWebAuthenticationSessionWebBrowserSupportCapabilities`).
struct BrowserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser",
        abstract: "Register the program that handles other programs' web sign-ins.",
        discussion: """
            A registered program receives the sign-ins of sessions that would open the person's \
            browser (custom-scheme callbacks; https callbacks with --callback-matching; ephemeral \
            ones with --ephemeral) over a 0600 Unix socket in $XDG_RUNTIME_DIR/webauth, and is \
            started for them when it is not running. Programs use Apple's \
            ASWebAuthenticationSessionWebBrowserSessionManager from WebAuthCompat. Sessions it \
            cannot honour go to a browser the session controls.

            The registration is a .desktop entry in $XDG_DATA_HOME/applications carrying the \
            capabilities (IsSupported, EphemeralBrowserSessionIsSupported, \
            CallbackURLMatchingIsSupported); there is one per person.
            """,
        subcommands: [Register.self, Unregister.self, Status.self]
    )

    struct Register: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register",
            abstract: "Make PROGRAM the person's web-authentication browser.",
            discussion: "Exit status: 0 registered, 1 failed, 7 invalid input."
        )

        @Argument(help: "The program's absolute path.")
        var program: String

        @Option(help: "The program's name, for messages (default: its file name).")
        var name: String?

        @Flag(help: "It honours ephemeral sessions (EphemeralBrowserSessionIsSupported).")
        var ephemeral = false

        @Flag(help: "It matches https callbacks itself (CallbackURLMatchingIsSupported).")
        var callbackMatching = false

        func run() throws {
            let capabilities = AuthenticationBrowserCapabilities(
                isSupported: true, ephemeralBrowserSessionIsSupported: ephemeral,
                callbackURLMatchingIsSupported: callbackMatching)
            do {
                let registration = try AuthenticationBrowserRegistry().register(
                    name: name ?? URL(fileURLWithPath: program).lastPathComponent, executablePath: program,
                    capabilities: capabilities)
                CommandOutput(json: false).result(registration.description)
            } catch {
                throw BrowserCommand.fail(error)
            }
        }
    }

    struct Unregister: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unregister",
            abstract: "Remove the web-authentication browser's registration.",
            discussion: "Exit status: 0 done (also when none was registered), 1 failed."
        )

        func run() throws {
            do {
                let removed = try AuthenticationBrowserRegistry().unregister()
                CommandOutput(json: false).result(
                    removed
                        ? "Unregistered the web-authentication browser" : "No web-authentication browser was registered"
                )
            } catch {
                throw BrowserCommand.fail(error)
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show the registered web-authentication browser.",
            discussion: "Exit status: 0 registered and usable, 1 none (or not usable)."
        )

        @Flag(help: "Print the status as JSON on standard output.")
        var json = false

        func run() throws {
            let registration = AuthenticationBrowserRegistry().registration
            if json {
                var object: [String: Any] = [
                    "registered": registration != nil, "usable": registration?.isUsable ?? false,
                ]
                if let registration {
                    object["name"] = registration.name
                    object["program"] = registration.executablePath
                    object["entry"] = registration.entryPath
                    object[AuthenticationBrowserCapabilities.isSupportedKey] = registration.capabilities.isSupported
                    object[AuthenticationBrowserCapabilities.ephemeralBrowserSessionIsSupportedKey] =
                        registration.capabilities.ephemeralBrowserSessionIsSupported
                    object[AuthenticationBrowserCapabilities.callbackURLMatchingIsSupportedKey] =
                        registration.capabilities.callbackURLMatchingIsSupported
                }
                CommandOutput(json: true).emit(object)
            } else {
                CommandOutput(json: false).result(
                    registration.map(\.description) ?? "No web-authentication browser is registered")
            }
            guard registration?.isUsable == true else { throw ExitCode(ExitStatus.failure) }
        }
    }

    /// Writes the error and returns the exit code for it.
    static func fail(_ error: AuthenticationBrowserError) -> ExitCode {
        CommandOutput(json: false).note("error: \(error.message)")
        return ExitCode(error.code == .invalidRegistration ? ExitStatus.invalidInput : ExitStatus.failure)
    }
}
