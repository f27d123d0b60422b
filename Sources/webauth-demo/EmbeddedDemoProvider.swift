// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
import WebAuthCLI
import WebAuthEmbeddedProvider

/// The embedded provider, as `webauth demo` signs in against it.
struct EmbeddedDemoProvider: DemoProvider {
    let provider: EmbeddedProvider

    static var user: DemoUser {
        DemoUser(username: EmbeddedProvider.User.demo.username, password: EmbeddedProvider.User.demo.password)
    }

    static func start(displayName: String, loginPageNote: String) async throws -> EmbeddedDemoProvider {
        var configuration = EmbeddedProvider.Configuration()
        configuration.displayName = displayName
        configuration.loginPageNote = loginPageNote
        return EmbeddedDemoProvider(provider: try await EmbeddedProvider.start(configuration))
    }

    var issuer: URL { provider.issuer }
    var clientID: String { EmbeddedProvider.Client.demo.id }
    var scriptedBrowserName: String { ScriptedUserAgent().name }

    func scriptedBrowser(onStep: @escaping @Sendable (String) -> Void) -> any Browser {
        let user = Self.user
        var agent = ScriptedUserAgent(username: user.username, password: user.password)
        agent.onStep = { step in
            switch step {
            case .filledLoginForm, .answeredConsent, .reachedCallback: onStep(step.description)
            default: break
            }
        }
        return agent
    }

    func isActive(accessToken: String) -> Bool { provider.isActive(accessToken: accessToken) }
    func isActive(refreshToken: String) -> Bool { provider.isActive(refreshToken: refreshToken) }
    func shutdown() async { await provider.shutdown() }
}
