// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
package import WebAuth
import WebAuthFastPath
import WebAuthPlatform

/// The person the demo's provider knows, whose name and password the demo shows.
package struct DemoUser: Sendable {
    /// The name to sign in with.
    package var username: String
    /// The password to sign in with.
    package var password: String

    /// A person who signs in as `username` with `password`.
    package init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// What `webauth demo` signs in against: the embedded OpenID Connect provider.
///
/// The command-line library knows the provider only through this protocol, so that the shipped
/// sign-in program (`webauth-full`) carries no provider code: only `webauth-demo`, the program
/// that runs the demo, links the provider and hands its type to ``DemoProgram``.
package protocol DemoProvider: Sendable {
    /// The person the provider knows.
    static var user: DemoUser { get }

    /// Starts a provider on the loopback interface, naming itself `displayName` and showing
    /// `loginPageNote` on its login page; what it throws is a `WebAuthError`, whose message is
    /// shown.
    static func start(displayName: String, loginPageNote: String) async throws -> Self

    /// The provider's issuer.
    var issuer: URL { get }
    /// The public client the demo signs in as (with PKCE, redirecting to loopback).
    var clientID: String { get }
    /// The ``Browser/name`` of the browser ``scriptedBrowser(onStep:)`` makes.
    var scriptedBrowserName: String { get }

    /// A browser that plays the person on the provider's pages, calling `onStep` with each step
    /// worth showing (filling the login form, answering consent, reaching the callback).
    func scriptedBrowser(onStep: @escaping @Sendable (String) -> Void) -> any Browser

    /// Whether the provider still accepts `accessToken`.
    func isActive(accessToken: String) -> Bool
    /// Whether the provider still accepts `refreshToken`.
    func isActive(refreshToken: String) -> Bool

    /// Stops the provider.
    func shutdown() async
}

/// `webauth-demo`, the program that runs `webauth demo`, and the hand-over to it.
package enum DemoProgram {
    /// The demo program's file name, installed beside `webauth-full`.
    package static let executableName = FullProgram.demoExecutableName

    private static let provider = Locked<(any DemoProvider.Type)?>(nil)

    /// The provider the demo signs in against; `nil` in `webauth-full`, which then runs
    /// `webauth-demo` for the demo.
    static var providerType: (any DemoProvider.Type)? { provider.withLock { $0 } }

    /// Runs `webauth demo` with this process's arguments (`webauth-demo ARGUMENTS` is
    /// `webauth demo ARGUMENTS`), signing in against `providerType`.
    package static func runFromCommandLine(providerType: any DemoProvider.Type) async {
        provider.withLock { $0 = providerType }
        await WebAuthCommand.runFromCommandLine(arguments: ["demo"] + CommandLine.arguments.dropFirst())
    }

    /// Runs `webauth-demo` beside the running program in this process's place with `arguments`;
    /// returns only if it cannot, having said why, with status 1.
    static func runDemoProgram(arguments: [String]) -> Never {
        let directory = FullProgram.runningExecutable().map {
            URL(fileURLWithPath: $0).deletingLastPathComponent().path
        }
        guard let directory else {
            fail("cannot find the running program's directory, where \(executableName) is")
        }
        let path = directory + "/" + executableName
        guard FileSystem.isExecutable(path) else {
            fail(
                "the demo runs in \(executableName), which is not in \(directory): `swift build` builds it, "
                    + "and the packages install it beside webauth")
        }
        let error = CurrentProcess.replace(with: path, arguments: [executableName] + arguments)
        fail("cannot run \(path): \(error)")
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        Foundation.exit(ExitStatus.failure)
    }
}
